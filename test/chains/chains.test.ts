// Chains end to end with the real `autoloop` CLI: chains.toml, steps as runs of their own with
// lineage in the journal, handoffs, a failing step, and the reference's chain record shape.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readChainsFile } from "../../src/harness/chains/chains-file.js";
import { decodeRecord } from "../../src/journal/codec.js";
import { ValidationError } from "../../src/util/errors.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

/** A preset whose agent runs `script` (sh) with the prompt file as $0. */
function preset(project: string, name: string, script: string): void {
  const dir = join(project, "presets", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 2\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\nprompt_mode = "file"\n`,
  );
}

function project(chains: string) {
  const dir = tempDir("autoloop-chain-");
  preset(dir, "first", "echo first-step-says-hello; echo LOOP_COMPLETE");
  preset(dir, "second", 'cat "$0" > second-prompt.md; echo LOOP_COMPLETE');
  preset(dir, "broken", "echo no good >&2; exit 7");
  writeFileSync(join(dir, "chains.toml"), chains);
  const journal = () =>
    readFileSync(join(dir, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { dir, journal };
}

describe("autoloop chain", () => {
  it("runs the steps in order, each a run of its own under the chain's run id", async () => {
    const { dir, journal } = project('[[chain]]\nname = "two"\nsteps = ["first", "second"]\n');
    const list = await autoloop(["chain", "list"], { cwd: dir });
    expect(list.stdout).toBe("two: first → second");
    const r = await autoloop(["chain", "run", "two", "ship", "it", "--run-id", "c1", "--quiet"], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const records = journal();
    const starts = records.filter((x) => x.topic === "loop.start");
    expect(starts.map((x) => [x.run, x.fields.trigger, x.fields.parent_run_id])).toEqual([
      ["c1-step-1", "chain", "c1"],
      ["c1-step-2", "chain", "c1"],
    ]);
    const chain = records.filter((x) => x.run === "c1").map((x) => x.topic);
    expect(chain).toEqual([
      "chain.start",
      "chain.step.start",
      "chain.step.finish",
      "chain.step.start",
      "chain.step.finish",
      "chain.complete",
    ]);
    expect(records.at(-1).fields).toMatchObject({ status: "completed", steps_run: "2" });
    // The second step's prompt carries the objective and the first step's result.
    const prompt = readFileSync(join(dir, "second-prompt.md"), "utf8");
    expect(prompt).toContain("ship it");
    expect(prompt).toContain("first-step-says-hello");
    const result = readFileSync(
      join(dir, ".autoloop", "chains", "c1", "step-1", "result.md"),
      "utf8",
    );
    expect(result).toContain("Step 1 (first, run c1-step-1): completed (completion_promise)");
  });

  it("stops at a failing step, says which, and exits like a failed run", async () => {
    const { dir, journal } = project(
      '[[chain]]\nname = "bad"\nsteps = ["first", "broken", "second"]\n',
    );
    const r = await autoloop(["chain", "run", "bad", "x", "--run-id", "c2", "--quiet"], {
      cwd: dir,
    });
    expect(r.exitCode).toBe(1);
    const done = journal().at(-1);
    expect(done.topic).toBe("chain.complete");
    expect(done.fields).toMatchObject({
      status: "failed",
      steps_run: "2",
      failed_step: "2",
      failed_run_id: "c2-step-2",
    });
    expect(journal().some((x) => x.run === "c2-step-3")).toBe(false);
  });

  it("runs an inline chain with autoloop run --chain", async () => {
    const { dir, journal } = project("");
    const r = await autoloop(["run", "--chain", "first,second", "inline", "goal", "--quiet"], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const start = journal().find((x) => x.topic === "chain.start");
    expect(start.fields).toMatchObject({
      name: "inline",
      steps: "first,second",
      objective: "inline goal",
    });
  });

  it("refuses a chain over its budget, and a chains.toml with mistakes, naming the field", async () => {
    const { dir } = project(
      '[budget]\nmax_steps = 1\n[[chain]]\nname = "two"\nsteps = ["first", "second"]\n',
    );
    const r = await autoloop(["chain", "run", "two", "--quiet"], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("the budget allows 1 ([budget] max_steps in chains.toml)");
    const dry = await autoloop(["chain", "run", "two", "--dry-run"], { cwd: dir });
    expect(dry.stdout).toContain("over budget");
    writeFileSync(
      join(dir, "chains.toml"),
      '[[chain]]\nname = "x"\nsteps = ["first"]\n[[chain.step]]\npreset = "second"\n',
    );
    expect(() => readChainsFile(dir)).toThrow(ValidationError);
    expect(() => readChainsFile(dir)).toThrow(/chain\[0\]\.steps.*one of the two forms/s);
    writeFileSync(
      join(dir, "chains.toml"),
      '[[chain]]\nname = "x"\nstep = [{ preset = "first", backend = { colour = "red" } }]\n',
    );
    expect(() => readChainsFile(dir)).toThrow(/chain\[0\]\.step\[0\]\.backend\.colour/);
  });

  it("reads the public autoloop's chain records, which carry chain_run instead of run", () => {
    const r = decodeRecord(
      '{"chain_run": "chain-7", "topic": "chain.complete", "fields": {"status": "failed"}}',
    );
    expect(r).toMatchObject({ run: "chain-7", topic: "chain.complete", ts: "" });
    expect(decodeRecord('{"chain_run": "x", "topic": "loop.start", "fields": {}}')).toBeUndefined();
  });
});

describe("chains that go wrong", () => {
  it("records a chain that breaks as failed, and refuses a run id already used", async () => {
    const { dir, journal } = project('[[chain]]\nname = "two"\nsteps = ["first", "second"]\n');
    expect(
      (await autoloop(["chain", "run", "two", "--run-id", "c9", "--quiet"], { cwd: dir })).exitCode,
    ).toBe(0);
    const again = await autoloop(["chain", "run", "two", "--run-id", "c9", "--quiet"], {
      cwd: dir,
    });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('run id "c9" is already in');
    expect(journal().filter((x) => x.topic === "chain.complete")).toHaveLength(1);
  });

  it("adds a step's model to the preset's args, and refuses ids its steps could not carry", async () => {
    const { dir, journal } = project(
      '[[chain]]\nname = "m"\n[[chain.step]]\npreset = "second"\nbackend = { model = "opus" }\n',
    );
    const r = await autoloop(["chain", "run", "m", "--run-id", "m1", "--quiet"], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const backend = journal().find((x) => x.topic === "backend.start");
    expect(JSON.parse(backend.fields.args)).toEqual([
      "-c",
      'cat "$0" > second-prompt.md; echo LOOP_COMPLETE',
      "--model",
      "opus",
    ]);
    const long = await autoloop(["chain", "run", "m", "--run-id", "x".repeat(125), "--quiet"], {
      cwd: dir,
    });
    expect(long.exitCode).toBe(2);
    expect(long.stderr).toContain("must stay within 128 characters");
  });

  it("bounds each step by what is left of the chain's max_runtime_ms", async () => {
    const { dir, journal } = project(
      '[budget]\nmax_runtime_ms = 1200\n[[chain]]\nname = "slow"\nsteps = ["sleepy"]\n',
    );
    preset(dir, "sleepy", "sleep 0.7; echo still working");
    const file = join(dir, "presets", "sleepy", "autoloops.toml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("max_iterations = 2", "max_iterations = 6"),
    );
    const r = await autoloop(["chain", "run", "slow", "--run-id", "s1", "--quiet"], { cwd: dir });
    expect(r.exitCode).toBe(3);
    const stop = journal().find((x) => x.run === "s1-step-1" && x.topic === "loop.stop");
    expect(stop.fields.reason).toBe("max_runtime");
  });

  it("refuses run options that a chain takes per step", async () => {
    const { dir } = project("");
    const r = await autoloop(["run", "--chain", "first", "x", "--max-iterations", "3"], {
      cwd: dir,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--max-iterations does not apply to --chain");
  });
});

describe("a step that uses up its iterations", () => {
  it("passes on to the next step, but as the last step the chain has not completed (exit 3)", async () => {
    const { dir, journal } = project(
      '[[chain]]\nname = "middle"\nsteps = ["endless", "first"]\n[[chain]]\nname = "last"\nsteps = ["first", "endless"]\n',
    );
    preset(dir, "endless", "echo still working");
    const middle = await autoloop(["chain", "run", "middle", "x", "--run-id", "m1", "--quiet"], {
      cwd: dir,
    });
    expect(middle.exitCode, middle.stderr).toBe(0);
    const last = await autoloop(["chain", "run", "last", "x", "--run-id", "l1", "--quiet"], {
      cwd: dir,
    });
    expect(last.exitCode).toBe(3);
    expect(journal().at(-1).fields).toMatchObject({
      status: "stopped",
      reason: "step_stopped",
      failed_step: "2",
      failed_reason: "max_iterations",
    });
  }, 60_000);
});
