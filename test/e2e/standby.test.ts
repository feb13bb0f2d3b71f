// A standby daemon (`[ha] lease`) on the state dir of an active one, each on a "host" of its own
// (test/helpers/hosts.ts): the active one is killed with SIGKILL, the standby takes over within
// twice the lease, and every slot across the takeover is claimed once and recorded once: run,
// or skipped with its reason (a slot the dead daemon claimed but never recorded is retaken).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { claimFilePath } from "../../src/scheduler/ledger/claim-files.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { slotKey } from "../../src/scheduler/ledger/slots.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { cronStart, onHost, whyNoHosts } from "../helpers/hosts.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const LEASE_MS = 2000;
const SCHEDULES = 10;
const skip = whyNoHosts();

/** Slots missed during the takeover are run (`catch_up = "all"`); beats are checked often. */
function project(schedules: string, beat = "300ms"): string {
  const dir = tempDir("autoloop-standby-");
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "work"));
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\nrun_heartbeat_interval = "${beat}"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "all"\ncatch_up_window = "10m"\n[ha]\nlease = "${LEASE_MS / 1000}s"\n`,
  );
  writeFileSync(join(dir, "schedules", "test.toml"), schedules);
  return dir;
}

/** Every claimed slot, as its claim files name them: `<schedule>@<slot ISO>`. */
function claims(dir: string): string[] {
  const root = join(dir, "state", "claims");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((s) =>
    readdirSync(join(root, s))
      .filter((f) => !f.endsWith(".tmp") && !f.endsWith(".retake"))
      .map((f) => `${decodeURIComponent(s)}@${decodeURIComponent(f)}`),
  );
}

interface SlotEvent {
  event: string;
  key?: string;
  schedule?: string;
  slot?: string;
}

/** Every ledger event of every run. */
function ledgerEvents(dir: string): SlotEvent[] {
  const runs = join(dir, "state", "runs");
  if (!existsSync(runs)) return [];
  return readdirSync(runs)
    .filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))
    .flatMap((d) => readdirSync(join(runs, d)).map((f) => join(runs, d, f)))
    .flatMap((f) => readFileSync(f, "utf8").split("\n").filter(Boolean))
    .map((line) => JSON.parse(line) as SlotEvent);
}

/** The slot keys of the ledger's `scheduled` events (one per run started for a slot). */
const scheduledKeys = (dir: string) =>
  ledgerEvents(dir)
    .filter((e) => e.event === "scheduled")
    .map((e) => e.key!);

/**
 * The slot keys the ledger records, once per record: a run (`scheduled`), a skip (`skipped`,
 * with its cause), or a claim closed as never started (`interrupted` with its slot, written
 * when the claimer died after its `slots.jsonl` line and before the run's first).
 */
const recordedKeys = (dir: string) =>
  ledgerEvents(dir).flatMap((e) => {
    if (e.event === "scheduled" || e.event === "skipped") return [e.key!];
    return e.event === "interrupted" && e.slot !== undefined ? [`${e.schedule}@${e.slot}`] : [];
  });

/** A claim file for a slot of `schedule` two seconds ahead, naming a run that never ran. */
function plantOrphan(dir: string, schedule: string): string {
  for (let ahead = 2; ; ahead++) {
    const slot = new Date((Math.floor(Date.now() / 1000) + ahead) * 1000);
    const path = claimFilePath(join(dir, "state"), slotKey(schedule, slot));
    try {
      writeFileSync(path, `${newScheduledRunId(schedule, slot, () => "dead0")}\n`, { flag: "wx" });
      return path;
    } catch {
      // claimed meanwhile: the next slot
    }
  }
}

/** A schedule whose runs end at once. */
const quick = (name: string, cron: string) =>
  `[[schedule]]\nname = "${name}"\ncron = "${cron}"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n`;

const tookOver = (log: string) => log.includes("lease taken");

/** `argv` on the test's own host, its output collected in `all`. */
const here = (argv: string[], cwd: string) =>
  execa(argv[0]!, argv.slice(1), {
    cwd,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    all: true,
  });

/** The pid (here) of the process whose argv is exactly `argv`. */
function pidOf(argv: string[]): number | undefined {
  const want = `${argv.join("\0")}\0`;
  for (const pid of readdirSync("/proc").filter((f) => /^\d+$/.test(f))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8") === want) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** The run: it records its pid, then waits. */
const HOLD = `require("node:fs").writeFileSync("run.pid", String(process.pid)); setInterval(() => {}, 60000);`;

describe.skipIf(skip !== undefined)(`a standby daemon ${skip ? `(skipped: ${skip})` : ""}`, () => {
  it("takes over within twice the lease when the active daemon's host is killed; no slot twice, none lost", async () => {
    const everySecond = Array.from({ length: SCHEDULES }, (_, i) =>
      quick(`s${i}`, "* * * * * *"),
    ).join("\n");
    // A run the dead host held, its heartbeat still fresh at the takeover (three 1 s beats).
    const hold = `[[schedule]]\nname = "hold"\ncron = "* * * * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(HOLD)}]\nproject_dir = "../work"\noverlap = "skip"\n`;
    const dir = project(`${everySecond}\n${hold}`, "1s");
    const beats = join(dir, "state", "heartbeats");
    const everySecondClaims = () => claims(dir).filter((k) => !k.startsWith("hold@"));
    const active = onHost(dir, cronStart("autoloop-cron.toml"));
    const standby = { host: undefined as ReturnType<typeof onHost> | undefined };
    try {
      await waitFor(() => tookOver(active.out.log), "the first daemon taking the lease");
      standby.host = onHost(dir, cronStart("autoloop-cron.toml"));
      await waitFor(() => standby.host!.out.log.includes("standby:"), "the second standing by");
      await waitFor(() => everySecondClaims().length >= 60, "slots run by the first daemon");
      expect(tookOver(standby.host.out.log)).toBe(false);
      const held = readdirSync(beats).find((f) => f.startsWith("hold-"))!;

      // As if the daemon died right after claiming a slot, before recording its run.
      const orphan = plantOrphan(dir, "s0");
      active.kill("SIGKILL");
      const killedAt = Date.now();
      await active;
      await waitFor(() => tookOver(standby.host!.out.log), "the takeover", 3 * LEASE_MS);
      expect(Date.now() - killedAt).toBeLessThan(2 * LEASE_MS);
      const before = everySecondClaims().length;
      await waitFor(
        () => everySecondClaims().length >= Math.max(before, 100) + 20,
        "slots after it",
      );
      // Left to its launcher while its heartbeat was fresh, closed once it went stale.
      const log = () => standby.host!.out.log;
      expect(log()).toContain(`"runId":"${held}"`);
      await waitFor(
        () =>
          log()
            .split("\n")
            .find((l) => l.includes(held) && l.includes("run marked interrupted")),
        "the dead host's run closed",
      );
      // A slot the dead daemon claimed but never recorded is retaken once three heartbeat
      // intervals old; then every claim has its record. A SIGTERM leaves no claim unrecorded.
      await waitFor(() => {
        const recorded = new Set(recordedKeys(dir));
        return everySecondClaims().every((k) => recorded.has(k));
      }, "a record of every claimed slot");
      const survivor = pidOf(cronStart("autoloop-cron.toml"));
      if (survivor !== undefined) process.kill(survivor, "SIGTERM");
      expect((await standby.host).exitCode).toBe(0);
      expect(existsSync(`${orphan}.retake`)).toBe(true);
    } finally {
      for (const host of [active, standby.host]) {
        host?.kill("SIGKILL");
        await host;
      }
    }

    const claimed = everySecondClaims();
    expect(claimed.length).toBeGreaterThanOrEqual(120);
    for (let i = 0; i < SCHEDULES; i++) {
      // Every second from the first claimed slot to the last: none lost across the gap.
      const slots = claimed
        .filter((k) => k.startsWith(`s${i}@`))
        .map((k) => Date.parse(k.slice(k.indexOf("@") + 1)))
        .sort((a, b) => a - b);
      const every = Array.from(
        { length: (slots.at(-1)! - slots[0]!) / 1000 + 1 },
        (_, n) => slots[0]! + n * 1000,
      );
      expect(slots).toEqual(every);
    }
    // No slot run twice, and none run without its claim.
    const runs = scheduledKeys(dir).filter((k) => !k.startsWith("hold@"));
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs.filter((k) => !claimed.includes(k))).toEqual([]);
    // None lost: every claimed slot has exactly one record, and every record its claim.
    const recorded = recordedKeys(dir).filter((k) => !k.startsWith("hold@"));
    expect(recorded.filter((k, i) => recorded.indexOf(k) !== i)).toEqual([]);
    expect([...recorded].sort()).toEqual([...claimed].sort());
  }, 60_000);

  it("on the same host, adopts the live run of the daemon killed with SIGKILL", async () => {
    const dir = project(
      `[[schedule]]\nname = "hold"\ncron = "* * * * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(HOLD)}]\nproject_dir = "../work"\novertlap = "skip"\n`.replace(
        "overtlap",
        "overlap",
      ),
    );
    const config = join(dir, "autoloop-cron.toml");
    const second = join(dir, "standby.toml");
    writeFileSync(second, readFileSync(config)); // the same settings, told apart in /proc
    // The host's first process outlives the daemon: the daemon is killed, not the host.
    const host = onHost(dir, ["sh", "-c", '"$@" & exec sleep 600', "host", ...cronStart(config)]);
    let standby: ReturnType<typeof here> | undefined;
    try {
      await waitFor(() => tookOver(host.out.log), "the first daemon taking the lease");
      const active = await waitFor(() => pidOf(cronStart(config)), "the first daemon's pid");
      const init = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${active}/status`, "utf8"))![1]);
      // The standby joins that host's namespaces: it sees the same pids.
      standby = here(["nsenter", "-t", String(init), "-p", "-m", "--", ...cronStart(second)], dir);
      let log = "";
      standby.all?.on("data", (chunk: Buffer) => {
        log += chunk.toString("utf8");
      });
      const runPid = join(dir, "work", "run.pid");
      await waitFor(() => existsSync(runPid) && log.includes("standby:"), "a run, and a standby");
      const runId = readdirSync(join(dir, "state", "heartbeats"))[0]!;

      process.kill(active, "SIGKILL");
      const killedAt = Date.now();
      await waitFor(() => tookOver(log), "the takeover", 3 * LEASE_MS);
      expect(Date.now() - killedAt).toBeLessThan(2 * LEASE_MS);
      await waitFor(
        () => log.includes("adopted a run that outlived the previous daemon"),
        "adoption",
      );
      expect(log).toContain(runId);
      // Still running, watched by the new daemon, and no second run started for its slots.
      expect(() => process.kill(Number(readFileSync(runPid, "utf8")), 0)).not.toThrow();
      expect(readdirSync(join(dir, "state", "heartbeats"))).toEqual([runId]);
      const ledger = readdirSync(join(dir, "state", "runs")).filter((d) => d.includes("-"));
      const events = readFileSync(join(dir, "state", "runs", ledger[0]!, `${runId}.jsonl`), "utf8");
      expect(events).toContain('"event":"adopted"');
    } finally {
      host.kill("SIGKILL"); // the host, with the standby that joined it and the run
      await host;
      await standby;
    }
  }, 30_000);
});

describe("a daemon that loses its lease", () => {
  it("stops firing at once and exits 1, leaving daemon.json to the new holder", async () => {
    const dir = project(quick("tick", "* * * * * *"));
    const daemon = here(cronStart("autoloop-cron.toml"), dir);
    try {
      await waitFor(() => claims(dir).length >= 1, "a slot fired");
      // Another daemon's generation, as if it found ours lapsed (a stall, a partition).
      const expiresAt = new Date(Date.now() + 60_000).toISOString();
      const taken = {
        v: 1,
        generation: 99,
        holder: "other",
        acquiredAt: expiresAt,
        renewedAt: expiresAt,
        expiresAt,
      };
      writeFileSync(join(dir, "state", "lease", "000000000099.json"), JSON.stringify(taken));
      const result = await daemon;
      expect(result.exitCode).toBe(1);
      expect(result.all).toContain("lease lost: stopped firing");
      expect(result.all).toContain("taken by other");
      const lost = result.all!.split("\n").find((l) => l.includes("lease lost"))!;
      const lostAt = (JSON.parse(lost) as { time: number }).time;
      const after = claims(dir).filter((k) => Date.parse(k.slice(k.indexOf("@") + 1)) > lostAt);
      expect(after).toEqual([]);
      expect(existsSync(join(dir, "state", "daemon.json"))).toBe(true);
    } finally {
      daemon.kill("SIGKILL");
      await daemon;
    }
  }, 20_000);
});

describe("a standby's HTTP side, and a clean handover", () => {
  it("answers /healthz as a standby; after SIGTERM to the holder, it takes over without waiting for the lease to lapse", async () => {
    const dir = project(quick("tick", "0 0 1 1 *"));
    const config = join(dir, "autoloop-cron.toml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace('listen = ""', 'listen = "127.0.0.1:0"'),
    );
    const start = () => here(cronStart(config), dir);
    const holder = start();
    const daemons = [holder];
    try {
      const info = join(dir, "state", "daemon.json");
      const url = () => (JSON.parse(readFileSync(info, "utf8")) as { http: string }).http;
      await waitFor(() => existsSync(info) && url(), "the first daemon up");
      const first = url();
      const standby = start();
      daemons.push(standby);
      let log = "";
      standby.all?.on("data", (chunk: Buffer) => {
        log += chunk.toString("utf8");
      });
      const served = await waitFor(
        () => /"url":"(http:[^"]+)","msg":"standby: \/healthz/.exec(log)?.[1],
        "the standby's address",
      );
      const health = await fetch(`${served}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.text()).toContain("standby: another daemon holds the lease");
      expect(await (await fetch(`${served}/metrics`)).text()).toContain("autoloop_cron_standby 1");

      holder.kill("SIGTERM");
      const stoppedAt = Date.now();
      expect((await holder).exitCode).toBe(0);
      await waitFor(() => tookOver(log), "the takeover");
      // Released: no wait for it to lapse (two thirds of the lease at least, unreleased).
      expect(Date.now() - stoppedAt).toBeLessThan((LEASE_MS * 2) / 3);
      await waitFor(() => existsSync(info) && url() !== first && url(), "the new daemon's address");
      expect((await fetch(`${url()}/healthz`)).status).toBe(200);
      await expect(fetch(`${served}/healthz`)).rejects.toThrow(); // the standby's server closed
    } finally {
      for (const d of daemons) d.kill("SIGKILL");
      await Promise.all(daemons);
    }
  }, 20_000);
});

describe("monitors taking turns by the lease (export kubernetes --replicas 2)", () => {
  it("the second stands by, and starts when the first stops", async () => {
    const dir = project(quick("tick", "0 0 1 1 *"));
    const monitor = () =>
      here([process.execPath, AUTOLOOP_CRON, "monitor", "--config", "autoloop-cron.toml"], dir);
    const first = monitor();
    const second = monitor();
    const logs = ["", ""];
    for (const [i, m] of [first, second].entries())
      m.all?.on("data", (chunk: Buffer) => {
        logs[i] += chunk.toString("utf8");
      });
    try {
      const started = (log: string) => log.includes("monitor started");
      await waitFor(
        () => logs.some(started) && logs.some((l) => l.includes("standby:")),
        "one monitor started, the other standing by",
      );
      const [active, standby] = started(logs[0]!) ? [first, 1] : [second, 0];
      expect(started(logs[standby]!)).toBe(false);
      active.kill("SIGTERM");
      expect((await active).exitCode).toBe(0);
      await waitFor(() => started(logs[standby]!), "the standby monitor starting");
    } finally {
      for (const m of [first, second]) m.kill("SIGKILL");
      await Promise.all([first, second]);
    }
  }, 20_000);
});
