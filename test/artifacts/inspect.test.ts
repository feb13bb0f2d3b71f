// `autoloop inspect <artifact>` on real runs of the demo preset and a real chain.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

async function demoRun() {
  const dir = tempDir("autoloop-inspect-");
  const r = await autoloop(["run", "demo", "Write the report", "--run-id", "d1", "--quiet"], {
    cwd: dir,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  const inspect = (...args: string[]) => autoloop(["inspect", ...args], { cwd: dir });
  return { dir, inspect };
}

describe("autoloop inspect artifacts", () => {
  it("projects the scratchpad, prompts, outputs and metrics of a run", async () => {
    const { inspect } = await demoRun();
    const pad = (await inspect("scratchpad")).stdout;
    expect(pad).toContain("# Scratchpad of d1");
    expect(pad).toMatch(/## Iteration 1\n\n- suggested roles: builder\n- after: loop.start/);
    expect(pad).toContain("- emitted `build.done`: iteration 1: built what the objective asks");
    expect(pad).toContain("- completion refused 1×");
    const prompt = await inspect("prompt", "--iteration", "2", "--format", "json");
    const p = JSON.parse(prompt.stdout);
    expect(p).toMatchObject({ run: "d1", iteration: 2 });
    expect(p.text).toContain("Write the report");
    // As the public autoloop takes it: the iteration as a word.
    expect(JSON.parse((await inspect("prompt", "2", "--json")).stdout).iteration).toBe(2);
    const out = JSON.parse((await inspect("output", "--json")).stdout);
    expect(out.iteration).toBe(3);
    expect(out.text).toContain("emitted task.complete");
    const m = JSON.parse((await inspect("metrics", "--run", "d1", "--format", "json")).stdout);
    expect(m).toMatchObject({
      run: "d1",
      preset: "demo",
      iterations: 3,
      outcome: "completed",
      reason: "completion_event",
      refusedCompletions: 1,
      eventsByTopic: { "build.done": 1, "task.complete": 1 },
    });
    expect(m.wallSeconds).toBeGreaterThanOrEqual(m.agentSeconds);
    expect((await inspect("metrics")).stdout).toContain("| refused completions (task.gate) | 1 |");
  });

  it("shows the memory a run's prompts see", async () => {
    const { dir, inspect } = await demoRun();
    await autoloop(["memory", "add", "learning", "--project", "the suite needs NODE_ENV=test"], {
      cwd: dir,
    });
    const md = (await inspect("memory")).stdout;
    expect(md).toContain("Loop memory:");
    expect(md).toContain("the suite needs NODE_ENV=test");
    expect(JSON.parse((await inspect("memory", "--json")).stdout).entries).toBe(1);
  });

  it("shows a chain's steps and outcomes", async () => {
    const dir = tempDir("autoloop-inspect-chain-");
    for (const name of ["a", "b"]) {
      mkdirSync(join(dir, "presets", name), { recursive: true });
      writeFileSync(
        join(dir, "presets", name, "autoloops.toml"),
        '[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "echo LOOP_COMPLETE"]\nprompt_mode = "file"\n',
      );
    }
    const r = await autoloop(["run", "--chain", "a,b", "go", "--run-id", "ch1", "--quiet"], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const md = (await autoloop(["inspect", "chain"], { cwd: dir })).stdout;
    expect(md).toContain("# Chain inline (ch1): completed (all_steps_passed)");
    expect(md).toContain("| 2 | b | ch1-step-2 | completed (completion_promise) | 1 |");
    const json = JSON.parse(
      (await autoloop(["inspect", "chain", "--run", "ch1", "--json"], { cwd: dir })).stdout,
    );
    expect(json.steps.map((s: { preset: string }) => s.preset)).toEqual(["a", "b"]);
  });

  it("says what is missing, and refuses a bad format", async () => {
    const { inspect } = await demoRun();
    const none = await inspect("prompt", "--iteration", "9");
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("no iteration.start record for iteration 9");
    expect((await inspect("chain")).stderr).toContain("no chain in");
    expect((await inspect("metrics", "--format", "yaml")).stderr).toContain(
      "--format must be md or json",
    );
    expect((await inspect("metrics", "--run", "nope")).stderr).toContain(
      'no journal records of run "nope"',
    );
  });
});
