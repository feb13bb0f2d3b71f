// The metareview end to end: `autoloop run` with a `[review]` preset whose agent and reviewer
// are small node scripts (real processes), against the public autoloop's cadence and records.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JournalRecord } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

// The agent: reports usage (1 USD at the preset's prices), completes at AGENT_COMPLETE_AT.
const AGENT = `
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
const env = process.env;
// AGENT_TASK_AT: files a task in that iteration, AGENT_DONE_AT: completes it in that one.
if (String(Number(env.AUTOLOOP_ITERATION)) === env.AGENT_TASK_AT)
  execFileSync(env.AUTOLOOP_BIN, ["task", "add", "write the changelog"]);
if (String(Number(env.AUTOLOOP_ITERATION)) === env.AGENT_DONE_AT)
  execFileSync(env.AUTOLOOP_BIN, ["task", "complete", "task-1"]);
writeFileSync(env.AUTOLOOP_USAGE_FILE, JSON.stringify({ model: "house-model", input_tokens: 1000000, output_tokens: 0 }));
const it = Number(env.AUTOLOOP_ITERATION);
console.log("agent iteration " + it);
if (String(it) === env.AGENT_COMPLETE_AT) console.log("LOOP_COMPLETE");
`;

// The reviewer: REVIEW_MODE says what it does; usage of 2 USD; verdict VERDICT.
const REVIEWER = `
import { writeFileSync } from "node:fs";
const env = process.env;
const mode = env.REVIEW_MODE ?? "ok";
if (env.AUTOLOOP_REVIEW_MODE !== "metareview") { console.log("not a review"); process.exit(2); }
if (mode === "fail") { process.exit(1); }
if (mode === "hang") setInterval(() => {}, 1000);
else {
  if (env.REVIEW_USAGE !== "none")
    writeFileSync(env.AUTOLOOP_USAGE_FILE, JSON.stringify({ model: "house-model", input_tokens: 2000000, output_tokens: 0 }));
  const verdict = { verdict: env.VERDICT ?? "CONTINUE", confidence: 0.9, reasoning: "tidied at " + env.AUTOLOOP_ITERATION, redirect_prompt: "Focus on the tests." };
  console.log("review of iteration " + env.AUTOLOOP_ITERATION + "\\n\`\`\`json\\n" + JSON.stringify(verdict) + "\\n\`\`\`");
}
`;

const ROLES = `
[[role]]
id = "planner"
emits = ["plan.ready"]
prompt = "Plan."

[[role]]
id = "builder"
emits = ["build.done"]
prompt = "Build."

[[role]]
id = "critic"
emits = ["task.complete"]
prompt = "Check."
`;

function setup(reviewToml: string, maxIterations = 10): { dir: string; preset: string } {
  const dir = tempDir();
  const preset = join(dir, "preset");
  mkdirSync(preset);
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  writeFileSync(join(dir, "reviewer.mjs"), REVIEWER);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = ${maxIterations}\nstall_iterations = 0\n\n` +
      `[backend]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(dir, "agent.mjs"))}]\n\n` +
      `[prices."house-model"]\ninput = 1\noutput = 1\n\n${reviewToml}`,
  );
  writeFileSync(join(preset, "topology.toml"), ROLES);
  return { dir, preset };
}

const reviewer = (dir: string) =>
  `command = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(dir, "reviewer.mjs"))}]\n`;

const reviewRecords = (journal: JournalRecord[]) =>
  journal.filter((r) => r.topic.startsWith("review."));
const iterationsOf = (journal: JournalRecord[], topic: string) =>
  journal.filter((r) => r.topic === topic).map((r) => r.iteration);
const fieldNames = (r: JournalRecord | undefined) =>
  r?.shape === "system" ? Object.keys(r.fields) : [];

async function run(dir: string, preset: string, env: Record<string, string> = {}) {
  return autoloop(["run", preset, "build it", "--quiet"], { cwd: dir, env });
}

describe("the metareview", () => {
  it("runs before iterations 2, 1+E, 1+2E... (E = the role count), with the public records, its usage counted", async () => {
    const { dir, preset } = setup("");
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\nenabled = true\n${reviewer(dir)}`,
    );
    const result = await run(dir, preset);
    expect(result.exitCode, result.stderr).toBe(3);
    const journal = journalOf(dir);
    expect(field(journal[0], "review_every")).toBe("3");
    expect(iterationsOf(journal, "review.start")).toEqual(["2", "4", "7", "10"]);
    expect(iterationsOf(journal, "iteration.start")).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i + 1)),
    );
    // Each review sits right before its iteration: start, usage, finish, verdict, then the iteration.
    for (const n of ["2", "4", "7", "10"]) {
      const mine = journal.filter((r) => r.iteration === n).map((r) => r.topic);
      expect(mine.slice(0, 5)).toEqual([
        "review.start",
        "backend.usage",
        "review.finish",
        "review.verdict",
        "iteration.start",
      ]);
    }
    const start = journal.find((r) => r.topic === "review.start");
    expect(fieldNames(start)).toEqual([
      "kind",
      "backend_kind",
      "backend_provider",
      "command",
      "prompt_mode",
      "prompt",
      "timeout_ms",
    ]);
    expect(field(start, "kind")).toBe("metareview");
    expect(field(start, "command")).toBe(process.execPath);
    expect(field(start, "prompt_mode")).toBe("arg");
    expect(field(start, "timeout_ms")).toBe("300000");
    expect(field(start, "prompt")).toContain("You are the metareview meta-reviewer for this loop.");
    expect(field(start, "prompt")).toContain("Review trigger iteration: 2\n");
    const finish = journal.find((r) => r.topic === "review.finish");
    expect(fieldNames(finish)).toEqual(["kind", "exit_code", "timed_out", "output"]);
    expect(finish?.shape === "system" && finish.fields.timed_out).toBe(false);
    expect(field(finish, "exit_code")).toBe("0");
    expect(field(finish, "output")).toContain("review of iteration 2");
    const verdict = journal.find((r) => r.topic === "review.verdict");
    expect(fieldNames(verdict)).toEqual(["verdict", "confidence", "reasoning"]);
    expect([field(verdict, "verdict"), field(verdict, "confidence")]).toEqual(["CONTINUE", "0.9"]);
    expect(field(verdict, "reasoning")).toBe("tidied at 2");
    // 10 iterations at 1 USD, 4 reviews at 2 USD: all in backend.usage and the run's spend.
    expect(journal.filter((r) => r.topic === "backend.usage")).toHaveLength(14);
    const stop = journal.at(-1);
    expect(stop?.topic).toBe("loop.stop");
    expect(field(stop, "reason")).toBe("max_iterations");
    expect(Number(field(stop, "cost_usd"))).toBe(18);
    // `inspect usage` agrees: every agent call priced, none counted unknown.
    const usage = await autoloop(["inspect", "usage", "--json"], { cwd: dir });
    expect(usage.exitCode, usage.stderr).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject([
      { iterations: 10, cost_usd: 18, unpriced_iterations: 0 },
    ]);
  });

  it("stops a review for an operator's interrupt, and the iteration goes on", async () => {
    const { dir, preset } = setup("", 2);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\ntimeout_ms = 60000\n${reviewer(dir)}`,
    );
    const running = autoloop(["run", preset, "build it", "--quiet", "--run-id", "r1"], {
      cwd: dir,
      env: { REVIEW_MODE: "hang", AGENT_COMPLETE_AT: "2" },
    });
    await waitFor(
      () =>
        existsSync(join(dir, ".autoloop", "journal.jsonl")) &&
        journalOf(dir).some((r) => r.topic === "review.start"),
      "the review to start",
    );
    const stopped = await autoloop(["control", "interrupt", "r1"], { cwd: dir });
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    const journal = journalOf(dir);
    const after = journal.slice(journal.findIndex((r) => r.topic === "review.start"));
    expect(after.map((r) => r.topic).slice(0, 3)).toEqual([
      "review.start",
      "review.finish",
      "operator.interrupt",
    ]);
    expect(after.some((r) => r.topic === "review.verdict")).toBe(false);
    expect(iterationsOf(journal, "iteration.start")).toEqual(["1", "2"]);
    expect(journal.at(-1)?.topic).toBe("loop.complete");
  });

  it("counts a review that reports no usage as an agent call of unknown cost", async () => {
    const { dir, preset } = setup("", 4);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\n${reviewer(dir)}`,
    );
    await run(dir, preset, { REVIEW_USAGE: "none" });
    const journal = journalOf(dir);
    expect(iterationsOf(journal, "review.start")).toEqual(["2", "4"]);
    expect(Number(field(journal.at(-1), "unpriced_iterations"))).toBe(2);
    const usage = await autoloop(["inspect", "usage", "--json"], { cwd: dir });
    expect(JSON.parse(usage.stdout)).toMatchObject([
      { iterations: 4, cost_usd: 4, unpriced_iterations: 2 },
    ]);
  });

  it("follows every_iterations and adversarial_first = false, and none after completion", async () => {
    const { dir, preset } = setup("", 10);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\nevery_iterations = 2\nadversarial_first = false\n${reviewer(dir)}`,
    );
    const result = await run(dir, preset, { AGENT_COMPLETE_AT: "5" });
    expect(result.exitCode, result.stderr).toBe(0);
    const journal = journalOf(dir);
    expect(iterationsOf(journal, "review.start")).toEqual(["3", "5"]);
    expect(journal.at(-1)?.topic).toBe("loop.complete");
    expect(field(journal.at(-1), "reason")).toBe("completion_promise");
  });

  it("is off for a preset without [review], and for enabled = false", async () => {
    for (const review of ["", "[review]\nenabled = false\n"]) {
      const { dir, preset } = setup(review, 4);
      const result = await run(dir, preset);
      expect(result.exitCode, result.stderr).toBe(3);
      const journal = journalOf(dir);
      expect(reviewRecords(journal)).toEqual([]);
      expect(fieldNames(journal[0])).not.toContain("review_every");
      expect(journal.filter((r) => r.topic === "backend.usage")).toHaveLength(4);
      expect(result.stderr).not.toContain("[review]");
    }
  });

  it("holds the loop (review_unknown) when the review fails, under the default on_error", async () => {
    const { dir, preset } = setup("", 10);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\n${reviewer(dir)}`,
    );
    const result = await run(dir, preset, { REVIEW_MODE: "fail" });
    expect(result.exitCode, result.stderr).toBe(1);
    const journal = journalOf(dir);
    const tail = journal.slice(-5).map((r) => r.topic);
    expect(tail).toEqual([
      "review.start",
      "review.finish",
      "review.verdict",
      "review.unknown",
      "loop.stop",
    ]);
    expect(field(journal.at(-4), "exit_code")).toBe("1");
    expect(field(journal.at(-3), "verdict")).toBe("UNKNOWN");
    expect(field(journal.at(-3), "confidence")).toBe("0");
    expect(field(journal.at(-3), "reasoning")).toBe(
      "Empty review output; failing closed to UNKNOWN",
    );
    expect(fieldNames(journal.at(-2))).toEqual(["on_error", "reason"]);
    expect(field(journal.at(-2), "on_error")).toBe("hold");
    expect(field(journal.at(-1), "reason")).toBe("review_unknown");
    expect(field(journal.at(-1), "iteration")).toBe("2");
    expect(iterationsOf(journal, "iteration.start")).toEqual(["1"]);
  });

  it("quarantines a review that times out; on_error = exit completes the run", async () => {
    const { dir, preset } = setup("", 10);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\ntimeout_ms = 500\non_error = "exit"\n${reviewer(dir)}`,
    );
    const result = await run(dir, preset, { REVIEW_MODE: "hang" });
    // Ended at the review's word, not a completion: stopped (exit 3).
    expect(result.exitCode, result.stderr).toBe(3);
    const journal = journalOf(dir);
    expect(journal.slice(-6).map((r) => r.topic)).toEqual([
      "review.start",
      "review.finish",
      "review.quarantine",
      "review.verdict",
      "review.unknown",
      "loop.stop",
    ]);
    const finish = journal.at(-5);
    expect(finish?.shape === "system" && finish.fields.timed_out).toBe(true);
    expect(field(journal.at(-4), "error_class")).toBe("timeout");
    expect(field(journal.at(-3), "reasoning")).toBe("Review timed out; could not verify (UNKNOWN)");
    expect(field(journal.at(-1), "reason")).toBe("verdict_unknown");
  });

  it("ends the run on EXIT, and REDIRECT rewrites the next iteration's objective", async () => {
    const { dir, preset } = setup("", 10);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\n${reviewer(dir)}`,
    );
    const exit = await run(dir, preset, { VERDICT: "EXIT" });
    expect(exit.exitCode, exit.stderr).toBe(0);
    let journal = journalOf(dir);
    expect(journal.slice(-2).map((r) => r.topic)).toEqual(["review.exit", "loop.complete"]);
    expect(fieldNames(journal.at(-2))).toEqual(["iteration", "reason"]);
    expect(field(journal.at(-1), "reason")).toBe("verdict_exit");

    const redirected = setup("", 3);
    writeFileSync(
      join(redirected.preset, "autoloops.toml"),
      `${readFileSync(join(redirected.preset, "autoloops.toml"), "utf8")}[review]\nevery_iterations = 5\n${reviewer(redirected.dir)}`,
    );
    await run(redirected.dir, redirected.preset, { VERDICT: "REDIRECT" });
    journal = journalOf(redirected.dir);
    expect(
      field(
        journal.find((r) => r.topic === "review.redirect"),
        "redirect_prompt",
      ),
    ).toBe("Focus on the tests.");
    const prompts = journal
      .filter((r) => r.topic === "iteration.start")
      .map((r) => field(r, "prompt"));
    expect(prompts[1]).toContain(
      "IMPORTANT: The metareviewer has redirected this task. Disregard your previous approach. New direction:\nFocus on the tests.\n\nbuild it",
    );
    expect(prompts[0]).not.toContain("redirected");
    // The new direction holds from then on, as in the public autoloop.
    expect(prompts[2]).toContain("New direction:\nFocus on the tests.");
  });

  it("holds an EXIT to the completion gate: refused while a task is open, then completes", async () => {
    const { dir, preset } = setup("", 10);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8")}[review]\nevery_iterations = 2\nadversarial_first = false\n${reviewer(dir)}`,
    );
    const result = await run(dir, preset, {
      VERDICT: "EXIT",
      AGENT_TASK_AT: "1",
      AGENT_DONE_AT: "3",
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const journal = journalOf(dir);
    // Before iteration 3 the task is open: the gate refuses the review's EXIT, the loop goes on.
    const gate = journal.find((r) => r.topic === "task.gate");
    expect(gate?.iteration).toBe("3");
    expect(field(gate, "via")).toBe("metareview");
    expect(field(gate, "open_tasks")).toBe("task-1");
    // Before iteration 5 it is done: the EXIT completes the run.
    expect(journal.at(-1)?.topic).toBe("loop.complete");
    expect(field(journal.at(-1), "reason")).toBe("verdict_exit");
    expect(iterationsOf(journal, "iteration.start")).toEqual(["1", "2", "3", "4"]);
  });

  it("counts the review's cost in the budget: max_cost_usd stops the run after the review", async () => {
    const { dir, preset } = setup("", 10);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `${readFileSync(join(preset, "autoloops.toml"), "utf8").replace("stall_iterations = 0", "stall_iterations = 0\nmax_cost_usd = 2.5")}[review]\n${reviewer(dir)}`,
    );
    const result = await run(dir, preset);
    expect(result.exitCode, result.stderr).toBe(3);
    const journal = journalOf(dir);
    const stop = journal.at(-1);
    expect(field(stop, "reason")).toBe("cost_budget");
    expect(Number(field(stop, "cost_usd"))).toBe(3);
    expect(iterationsOf(journal, "iteration.start")).toEqual(["1"]);
    expect(journal.at(-2)?.topic).toBe("review.verdict");
  });
});
