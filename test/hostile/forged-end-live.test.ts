// A stuck agent forges its run's end in a live daemon: a `loop.complete` line appended to its
// own journal while its harness still runs, and registry lines naming a dead pid on another
// host (so the run's liveness would be "unknown"). The gate alert neither resolves nor fires
// again (no flap, however often it forges), and resolves once the run really ends.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { AUTOLOOP_CRON, autoloop, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { enqueuedMessages } from "../helpers/outbox.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const SCHEDULE = `[[schedule]]
name = "stuck"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Ship it (stuck)"
project_dir = "../work"
max_iterations = 16
env = { AUTOLOOP_DEMO_DELAY_MS = "300" }

[schedule.monitor]
gate_rejections = 2
`;

describe("a forged end in a live daemon", () => {
  it("neither resolves nor re-fires the gate alert while the harness runs; the real end resolves it", async () => {
    const root = tempDir("autoloop-forge-live-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
    );
    writeFileSync(join(root, "schedules", "s.toml"), SCHEDULE);
    const state = join(root, "state");
    const journal = join(root, "work", ".autoloop", "journal.jsonl");
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    const gatePages = () =>
      enqueuedMessages(state).filter((m) => m.fingerprint === "gate_stuck:schedule/stuck");
    const records = (run: string, topic: string) =>
      (existsSync(journal) ? readFileSync(journal, "utf8") : "")
        .split("\n")
        .filter((l) => l.includes(`"run": "${run}"`) && l.includes(`"topic": "${topic}"`)).length;
    const fire = async () => {
      const fired = await cron("fire", "stuck");
      return /stuck-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
    };
    try {
      await waitFor(() => existsSync(join(state, "daemon.json")), "the daemon", 30_000);
      // A first run gives up at its gate (max_iterations): the schedule's gate alert fires.
      const first = await fire();
      await waitFor(() => records(first, "loop.stop") > 0, "the first run's end", 90_000, 100);
      await waitFor(() => gatePages().length > 0, "the gate alert", 60_000, 100);

      // The next run's agent forges its end at once, and again later, while its harness runs.
      const second = await fire();
      await waitFor(() => records(second, "loop.start") > 0, "the second run's start", 30_000);
      const registry = join(root, "work", ".autoloop", "registry.jsonl");
      const forge = () => {
        appendFileSync(
          journal,
          `${encodeRecord({ shape: "system", run: second, topic: "loop.complete", ts: new Date().toISOString(), v: 1, fields: { reason: "completion_event" } } as JournalRecord)}\n`,
        );
        const elsewhere = { run_id: second, status: "running", pid: 999_999, host: "elsewhere" };
        appendFileSync(registry, `${JSON.stringify(elsewhere)}\n`);
      };
      forge();
      await waitFor(() => records(second, "task.gate") >= 2, "the harness going on", 60_000);
      forge();
      // Past the monitor's full passes (every 5 s) over what came after each forged line.
      await waitFor(() => records(second, "task.gate") >= 5, "more refusals", 60_000);
      expect(gatePages().map((m) => m.status)).toEqual(["firing"]);

      // The agent finishes the task it was stuck on: the run's real end resolves the alert.
      const tasks = join(root, "work", ".autoloop", "runs", second, "tasks.jsonl");
      const closed = await autoloop(["task", "complete", "task-2"], {
        cwd: join(root, "work"),
        env: { AUTOLOOP_TASKS_FILE: tasks },
      });
      expect(closed.exitCode, closed.stderr).toBe(0);
      await waitFor(() => gatePages().length > 1, "the gate alert's resolution", 60_000, 100);
      expect(gatePages().map((m) => m.status)).toEqual(["firing", "resolved"]);
      expect(JSON.stringify(gatePages()[1])).toContain(`run ${second} completed`);
      expect(records(second, "loop.complete")).toBe(3); // two forged, one the harness's
    } finally {
      daemon.kill("SIGTERM");
      await daemon;
    }
  }, 240_000);
});
