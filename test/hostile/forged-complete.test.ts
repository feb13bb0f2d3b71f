// A run that swaps its journal for a copy ending in a forged `loop.complete` ($0 spent), then
// lets its harness stop at max_iterations (exit 3): the daemon does not book it "completed"
// (our harness exits 0 only once it completed) nor $0 (its end record says $5), and a $1
// per_day budget skips the next slot.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const FORGED =
  '{"run": "RUNID", "iteration": "1", "topic": "loop.complete", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "fields": {"reason": "completion_event", "cost_usd": "0", "total_tokens": "0"}}';

describe("a forged loop.complete in a swapped journal", () => {
  it("is not the run's end: the exit decides, the harness's spend is booked", async () => {
    const root = tempDir("autoloop-forged-complete-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work", ".autoloop"), { recursive: true });
    mkdirSync(join(root, "presets", "spender"), { recursive: true });
    const script = `printf '%s' '{"model":"m","input_tokens":1000,"output_tokens":1000,"cost_usd":5}' > "$AUTOLOOP_USAGE_FILE"; cp .autoloop/journal.jsonl .autoloop/j.new; printf '%s\\n' '${FORGED}' | sed "s/RUNID/$AUTOLOOP_RUN_ID/" >> .autoloop/j.new; mv .autoloop/j.new .autoloop/journal.jsonl`;
    writeFileSync(
      join(root, "presets", "spender", "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`,
    );
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
    );
    writeFileSync(
      join(root, "schedules", "s.toml"),
      `[[schedule]]\nname = "spender"\ncron = "0 0 1 1 *"\npreset = "spender"\nobjective = "x"\nproject_dir = "../work"\nbudget = { per_day = 1.0 }\n`,
    );
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const rows = async () =>
      JSON.parse((await cron("runs", "--schedule", "spender", "--json")).stdout) as {
        status: string;
        costUsd?: number;
      }[];
    const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    try {
      await waitFor(() => existsSync(join(root, "state", "daemon.json")), "the daemon", 30_000);
      const fire = async (n: number) => {
        await cron("fire", "spender");
        return waitFor(
          async () => {
            const all = await rows();
            const r = all.length >= n ? all[0] : undefined;
            return r !== undefined && !["running", "pending"].includes(r.status) ? r : undefined;
          },
          `run ${n}'s end`,
          60_000,
          100,
        );
      };
      const first = await fire(1);
      expect(first.status).not.toBe("completed");
      expect(first.costUsd).toBe(5);
      const second = await fire(2);
      expect(second.status).toBe("skipped");
    } finally {
      daemon.kill("SIGTERM");
      await daemon;
    }
  }, 120_000);
});
