// `autoloop inspect chain --all`: every chain of a work dir and who spawned it, from the
// journal: the public autoloop's "Chain State" text line for line, and the lineage as JSON.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

function preset(dir: string, name: string, script: string, extra = ""): string {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(
    join(dir, name, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 3\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`${script}\n"$AUTOLOOP_BIN" emit task.complete done`)}]\nprompt_mode = "file"\n${extra}`,
  );
  return join(dir, name);
}

describe("autoloop inspect chain --all", () => {
  it("lists every chain record in journal order, spawns included, and their lineage", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-lineage-");
    const ask = `"$AUTOLOOP_BIN" emit chain.spawn '{"preset": "follow", "justification": "needs a check"}'`;
    preset(presets, "lead", ask, '[chain_spawn]\npresets = ["follow"]\n');
    preset(presets, "follow", "true");
    const r = await autoloop(["run", join(presets, "lead"), "ship", "--run-id", "root"], {
      cwd: work,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // (The helper drops the output's last newline.)
    const md = await autoloop(["inspect", "chain", "--all"], { cwd: work });
    expect(md.stdout).toBe(
      "# Chain State\n\n" +
        "- Spawned: root-spawn-1 (parent: root, steps: follow)\n" +
        "## Chain: root-spawn-1\nSteps: follow\n\n" +
        "- Step 1 (follow) started\n" +
        "- Step 1 (follow) finished: completion_event\n" +
        "\nOutcome: all_steps_complete (1 steps completed)\n\n",
    );
    const json = JSON.parse(
      (await autoloop(["inspect", "chain", "--all", "--json"], { cwd: work })).stdout,
    );
    expect(json.spawns).toEqual([
      {
        chainId: "root-spawn-1",
        parentId: "root",
        steps: "follow",
        justification: "needs a check",
        depth: "1",
      },
    ]);
    expect(json.chains).toMatchObject([
      {
        chainRun: "root-spawn-1",
        parentRunId: "root",
        depth: "1",
        status: "completed",
        steps: [{ preset: "follow", runId: "root-spawn-1-step-1" }],
      },
    ]);
    const none = await autoloop(["inspect", "chain", "--all"], { cwd: tempDir() });
    expect(none.stdout).toBe("(no chain runs found)");
  }, 60_000);
});
