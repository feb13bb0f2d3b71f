// A run waiting for a human outlives its daemon: after a kill -9 of the daemon the run still
// waits, the next daemon adopts it and does not page its question again, the CLI's answer
// reaches the run, and the page is resolved once.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

describe("a question across a daemon restart", () => {
  it("is paged once, answered after the restart, and resolved once", async () => {
    const root = tempDir("autoloop-ask-restart-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
    );
    writeFileSync(
      join(root, "schedules", "s.toml"),
      `[[schedule]]\nname = "asker"\ncron = "0 0 1 1 *"\npreset = "demo"\nobjective = "Ship the release after a human's sign-off"\nproject_dir = "../work"\nenv = { AUTOLOOP_DEMO_DELAY_MS = "50" }\n`,
    );
    const env = cleanEnv();
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env,
        extendEnv: false,
        reject: false,
      });
    const start = () =>
      execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
        env,
        extendEnv: false,
        reject: false,
      });
    const mail = join(root, "state", "mail");
    const pages = () =>
      existsSync(mail)
        ? readdirSync(mail)
            .filter((f) => /question_pending.*\.txt$/.test(f))
            .map((f) => readFileSync(join(mail, f), "utf8"))
        : [];
    const first = start();
    await waitFor(() => existsSync(join(root, "state", "daemon.json")), "the daemon", 30_000);
    const fired = await cron("fire", "asker");
    const runId = /asker-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
    await waitFor(() => pages().length > 0, "the question's page", 30_000, 200);
    first.kill("SIGKILL");
    await first;

    const second = start();
    try {
      // The run still waits on its own; the new daemon adopts it.
      const show = await waitFor(
        async () => {
          const r = await cron("runs", "show", runId);
          return r.stdout.includes("adopted") ? r.stdout : undefined;
        },
        "the run adopted by the next daemon",
        30_000,
        200,
      );
      expect(show).toContain("running");
      const answered = await cron("answer", runId, "yes");
      expect(answered.exitCode, answered.stderr).toBe(0);
      await waitFor(
        async () => (await cron("runs", "show", runId)).stdout.includes("completed"),
        "the answered run to complete",
        30_000,
        200,
      );
      await waitFor(
        () => pages().some((t) => t.includes("[RESOLVED]")),
        "the resolved notice",
        30_000,
        200,
      );
      const all = pages();
      expect(all.filter((t) => t.includes("[FIRING]"))).toHaveLength(1);
      expect(all.filter((t) => t.includes("[RESOLVED]"))).toHaveLength(1);
      expect(all.find((t) => t.includes("[RESOLVED]"))).toMatch(/answered by cli:/);
    } finally {
      second.kill("SIGTERM");
      await second;
    }
  }, 120_000);
});
