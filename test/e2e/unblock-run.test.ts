// On-call unblocks a live scheduled run from the terminal: a run stuck at its completion gate
// on a task only a human could close goes on once `autoloop-cron task … complete` closes it
// (the run's next prompt says who did); `answer` to a run that asks nothing, `guide` and
// `interrupt` to a run that ended are refused with nothing written.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

describe("unblocking a live run from the CLI", () => {
  it("closes the task a run is stuck on, and the run completes", async () => {
    const root = tempDir("autoloop-unblock-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
    );
    writeFileSync(
      join(root, "schedules", "s.toml"),
      `[[schedule]]\nname = "stuck"\ncron = "0 0 1 1 *"\npreset = "demo"\nobjective = "Ship it (stuck)"\nproject_dir = "../work"\nmax_iterations = 40\nenv = { AUTOLOOP_DEMO_DELAY_MS = "300" }\n`,
    );
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
    try {
      await waitFor(() => existsSync(join(root, "state", "daemon.json")), "the daemon", 30_000);
      const fired = await cron("fire", "stuck");
      const runId = /stuck-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
      const journal = join(root, "work", ".autoloop", "journal.jsonl");
      await waitFor(
        () => existsSync(journal) && readFileSync(journal, "utf8").includes('"task.gate"'),
        "the gate's first refusal",
        30_000,
      );
      // It asks nothing: an answer is refused, and nothing is written.
      const answer = await cron("answer", runId, "yes");
      expect(answer.exitCode).toBe(1);
      expect(answer.stderr).toContain(`run ${runId} is not waiting for an answer`);
      expect(
        existsSync(join(root, "work", ".autoloop", "runs", runId, "control", "requests.jsonl")),
      ).toBe(false);

      const closed = await cron("task", runId, "complete", "task-2");
      expect(closed.exitCode, closed.stderr).toBe(0);
      expect(closed.stdout).toContain(`completed task task-2 of ${runId}`);
      await waitFor(
        async () => (await cron("runs", "show", runId)).stdout.includes("completed"),
        "the run to complete",
        30_000,
        200,
      );
      expect(readFileSync(journal, "utf8")).toMatch(
        /"topic": "operator.guidance".*The operator \(cli:[^)]+\) completed task task-2/,
      );
      // Ended: nothing to guide or interrupt any more.
      const late = await cron("guide", runId, "keep going");
      expect(late.exitCode).toBe(1);
      expect(late.stderr).toContain(`run ${runId} is not running`);
      expect((await cron("interrupt", runId)).exitCode).toBe(1);
      expect((await cron("answer", "../../etc/passwd", "yes")).exitCode).toBe(1);
    } finally {
      daemon.kill("SIGTERM");
      await daemon;
    }
  }, 90_000);
});
