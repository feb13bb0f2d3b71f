// A real daemon whose state dir is a 1 MiB tmpfs (in a user and mount namespace of its own, no
// root needed where those are allowed; skipped elsewhere) that the test fills while a schedule
// fires every second and another fails every two: the full disk is reported (an alert by
// webhook, /healthz, `status`), and once space returns every run that happened is in the
// ledger, each file's lines whole, and the alert resolves.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { startReceiver, type TestReceiver } from "../channels/helpers.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { freePort } from "./daemon-process.js";

const canMount =
  spawnSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"]).status === 0;

let receiver: TestReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  cleanupTempDirs();
});

const schedule = (name: string, cron: string, code: string) =>
  `[[schedule]]\nname = "${name}"\ncron = "${cron}"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(code)}]\nproject_dir = "../work"\n`;

describe.skipIf(!canMount)("a state dir whose disk fills up", () => {
  it("is reported, and loses no run: the held ledger lines are written once space returns", async () => {
    receiver = await startReceiver();
    const dir = tempDir("autoloop-full-disk-");
    const state = join(dir, "state");
    mkdirSync(state);
    mkdirSync(join(dir, "schedules"));
    mkdirSync(join(dir, "work"));
    const port = await freePort();
    const config = join(dir, "autoloop-cron.toml");
    const channel = `[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "${receiver.url}"\n`;
    writeFileSync(
      config,
      `state_dir = "state"\n[http]\nlisten = "127.0.0.1:${port}"\n[defaults]\ncatch_up = "none"\n${channel}`,
    );
    writeFileSync(
      join(dir, "schedules", "test.toml"),
      schedule("canary", "* * * * * *", "0") +
        schedule("flaky", "*/2 * * * * *", "process.exit(3)"),
    );
    const script = `mount -t tmpfs -o size=1m tmpfs "$STATE" || exit 99; exec "$NODE" "$CRON" start --config "$CONFIG"`;
    const daemon = execa("unshare", ["-rm", "sh", "-c", script], {
      env: {
        ...cleanEnv(),
        STATE: state,
        NODE: process.execPath,
        CRON: AUTOLOOP_CRON,
        CONFIG: config,
      },
      extendEnv: false,
      reject: false,
    });
    let output = "";
    daemon.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    daemon.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    const log = () => output;
    // The daemon's view of its state dir (the tmpfs), seen through its mount namespace.
    const inside = `/proc/${daemon.pid}/root${state}`;
    const url = `http://127.0.0.1:${port}`;
    const health = async () => {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(
        () => undefined,
      );
      return res && { status: res.status, body: await res.text() };
    };
    // `status` run against the tmpfs, through the same view.
    const statusConfig = join(dir, "inside.toml");
    writeFileSync(
      statusConfig,
      `state_dir = ${JSON.stringify(inside)}\nschedules_dir = "schedules"\n`,
    );
    const status = () =>
      execa(process.execPath, [AUTOLOOP_CRON, "status", "--config", statusConfig], {
        env: cleanEnv(),
        reject: false,
      });
    /** The webhook's state_unwritable request with this status, once it came. */
    const alertByWebhook = (phase: "firing" | "resolved") =>
      waitFor(
        () =>
          receiver!.requests.all.find(
            (r) => r.body.includes('"state_unwritable"') && r.body.includes(`"${phase}"`),
          ),
        `the ${phase} state_unwritable alert by webhook`,
        30_000,
        200,
      );
    const runs = async () => {
      const r = await execa(
        process.execPath,
        [AUTOLOOP_CRON, "runs", "--limit", "10000", "--json", "--config", statusConfig],
        { env: cleanEnv(), reject: false },
      );
      return JSON.parse(r.stdout) as { runId: string; schedule: string; status: string }[];
    };
    try {
      await waitFor(
        async () => (await health())?.status === 200,
        "the daemon's /healthz",
        20_000,
        100,
      );
      await waitFor(async () => (await runs()).length >= 2, "the first runs", 20_000, 200);

      // Fill the disk to the last block.
      const filler = join(inside, "filler");
      try {
        writeFileSync(filler, Buffer.alloc(2 << 20));
      } catch {
        // ENOSPC: what is written stays, the disk is full.
      }
      const full = await waitFor(
        async () => {
          const h = await health();
          return (
            h?.status === 503 && /ENOSPC/.test(h.body) && /ledger: ENOSPC/.test(h.body) && h.body
          );
        },
        "/healthz to report the ledger's failed writes",
        20_000,
        200,
      );
      expect(full).toContain("line(s) held in memory");
      const st = await status();
      expect(st.exitCode).toBe(1);
      expect(st.stdout).toContain("State dir:\n  not writable: ENOSPC");
      const firing = await alertByWebhook("firing");
      expect(firing.body).toContain("cannot be written");

      // Space returns: the held lines go in, in order; the alert resolves.
      rmSync(filler);
      await waitFor(
        async () => (await health())?.status === 200,
        "/healthz healthy again",
        20_000,
        200,
      );
      await alertByWebhook("resolved");
      expect(log()).toContain("run ledger: the held lines are written");
      // Every file whole: no two records glued into one line.
      for (const file of ["slots.jsonl", join("runs", "index.jsonl")])
        for (const line of readFileSync(join(inside, file), "utf8").split("\n"))
          expect(line).not.toMatch(/\}\s*\{/);
      // Every run the daemon fired is in the ledger and ended, the flaky ones failed: those
      // that ran while the disk was full too.
      const fired = [...log().matchAll(/"runId":"([^"]+)"[^\n]*"msg":"fired"/g)].map((m) => m[1]!);
      expect(fired.length).toBeGreaterThan(5);
      const ledger = await waitFor(
        async () => {
          const all = await runs();
          const ended = all.filter((r) => r.status !== "running" && r.status !== "pending");
          return fired.every((id) => ended.some((r) => r.runId === id)) && all;
        },
        "every fired run ended in the ledger",
        30_000,
        500,
      );
      // The flaky runs among those fired (a run fired since may still be going; a slot of flaky
      // whose run was still going is skipped under overlap = "skip").
      const flaky = ledger.filter((r) => r.schedule === "flaky" && fired.includes(r.runId));
      expect(flaky.length).toBeGreaterThan(2);
      expect(flaky.every((r) => r.status === "failed")).toBe(true);
    } catch (err) {
      console.log(receiver!.requests.all.map((r) => r.body.slice(0, 200)).join("\n"));
      console.log(
        log()
          .split("\n")
          .filter((l) => /alert|held|retention|ledger|outbox|resolv/i.test(l))
          .join("\n")
          .slice(0, 6000),
      );
      throw err;
    } finally {
      daemon.kill("SIGTERM");
      await daemon;
    }
  }, 120_000);
});
