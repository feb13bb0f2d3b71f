// Records and views where we follow the public autoloop's sources byte for byte (issue 48.7):
// `autoloop run` with small node scripts as agent and reviewer (real processes).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { chainStatusOf } from "../../src/journal/stop-reasons.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

// Reports usage (1 USD at the preset's prices; no usage at NO_USAGE_AT), completes at COMPLETE_AT.
const AGENT = `
import { writeFileSync } from "node:fs";
const env = process.env;
const it = env.AUTOLOOP_ITERATION;
if (it !== env.NO_USAGE_AT)
  writeFileSync(env.AUTOLOOP_USAGE_FILE, JSON.stringify({ model: "house-model", input_tokens: 1000000, output_tokens: 5, cache_read_tokens: 7 }));
console.log(it === env.COMPLETE_AT ? "LOOP_COMPLETE" : "working");
`;

// The metareview's verdict is VERDICT (EXIT by default).
const REVIEWER = `
const verdict = process.env.VERDICT ?? "EXIT";
console.log("\`\`\`json\\n" + JSON.stringify({ verdict, confidence: 0.9, reasoning: "done" }) + "\\n\`\`\`");
`;

function project(review: boolean): { dir: string; preset: string } {
  const dir = tempDir();
  const preset = join(dir, "preset");
  mkdirSync(preset);
  writeFileSync(join(dir, "agent.mjs"), AGENT);
  writeFileSync(join(dir, "reviewer.mjs"), REVIEWER);
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 5\nstall_iterations = 0\n\n` +
      `[backend]\ncommand = ${node}\nargs = [${JSON.stringify(join(dir, "agent.mjs"))}]\n\n` +
      `[prices."house-model"]\ninput = 1\noutput = 0\n` +
      (review
        ? `\n[review]\ncommand = ${node}\nargs = [${JSON.stringify(join(dir, "reviewer.mjs"))}]\n`
        : ""),
  );
  return { dir, preset };
}

const run = (dir: string, preset: string, env: Record<string, string>) =>
  autoloop(["run", preset, "build it", "--quiet", "--run-id", "r1"], { cwd: dir, env });

/** A system record's iteration, topic and fields, keys in the order written. */
const shape = (r: JournalRecord | undefined) =>
  r?.shape === "system" ? [r.iteration, r.topic, Object.entries(r.fields)] : r;

describe("formats that follow the public autoloop", () => {
  it("parks a completion and accepts it before loop.complete; inspect usage per agent call", async () => {
    const { dir, preset } = project(false);
    const result = await run(dir, preset, { COMPLETE_AT: "3", NO_USAGE_AT: "2" });
    expect(result.exitCode, result.stderr).toBe(0);
    const tail = journalOf(dir).slice(-3);
    expect(tail.map(shape).slice(0, 2)).toEqual([
      [
        "3",
        "completion.provisional",
        [
          ["state", "awaiting_acceptance"],
          ["reason", "completion_promise"],
        ],
      ],
      [
        "3",
        "completion.accepted",
        [
          ["state", "accepted"],
          ["human_ack", false],
        ],
      ],
    ]);
    expect(tail[2]?.topic).toBe("loop.complete");
    expect(tail[2]?.iteration).toBe("3");
    // `backend.usage`: the public fields in the public order, ours after them.
    const used = journalOf(dir).find((r) => r.topic === "backend.usage");
    expect(used?.shape === "system" && Object.keys(used.fields)).toEqual([
      "input_tokens",
      "output_tokens",
      "cache_read_tokens",
      "cache_write_tokens",
      "total_tokens",
      "cost_usd",
      "model",
      "cost_source",
    ]);

    const json = await autoloop(["inspect", "usage", "--run", "r1", "--json"], { cwd: dir });
    expect(json.exitCode, json.stderr).toBe(0);
    const usage = JSON.parse(json.stdout) as {
      rows: Record<string, unknown>[];
      totals: Record<string, unknown>;
    };
    expect(Object.keys(usage)).toEqual(["rows", "totals"]);
    expect(usage.rows.map((r) => r.iteration)).toEqual(["1", "3"]);
    expect(Object.entries(usage.rows[0]!)).toEqual([
      ["iteration", "1"],
      ["inputTokens", 1000000],
      ["outputTokens", 5],
      ["cacheReadTokens", 7],
      ["cacheWriteTokens", 0],
      ["totalTokens", 1000012],
      ["costUsd", 1.000007],
      ["model", "house-model"],
      ["costSource", "config"],
    ]);
    expect(Object.entries(usage.totals)).toEqual([
      ["iterations", 2],
      ["inputTokens", 2000000],
      ["outputTokens", 10],
      ["cacheReadTokens", 14],
      ["cacheWriteTokens", 0],
      ["totalTokens", 2000024],
      ["costUsd", 2.000014],
      ["unpricedIterations", 1],
    ]);

    const text = await autoloop(["inspect", "usage", "--run", "r1"], { cwd: dir });
    expect(text.stdout.split("\n")).toEqual([
      "## Usage",
      "",
      "iter  input    output  cache_r  cache_w  total    cost_usd  ctx%",
      "1     1000000  5       7        0        1000012  1.0000    -",
      "3     1000000  5       7        0        1000012  1.0000    -",
      "",
      "totals: 2 iteration(s), 2000024 tokens, $2.0000, 1 agent call(s) of unknown cost",
    ]);
  });

  it("journals a metareview's EXIT at the iteration it reviewed, without the claim lifecycle", async () => {
    const { dir, preset } = project(true);
    const result = await run(dir, preset, {});
    expect(result.exitCode, result.stderr).toBe(0);
    const journal = journalOf(dir);
    expect(journal.slice(-2).map((r) => [r.iteration, r.topic])).toEqual([
      ["2", "review.exit"],
      ["2", "loop.complete"],
    ]);
    expect(journal.some((r) => r.topic.startsWith("completion."))).toBe(false);

    // A verdict that holds the run is journaled at that iteration too, as public `review_unknown`.
    const held = project(true);
    expect((await run(held.dir, held.preset, { VERDICT: "MAYBE" })).exitCode).not.toBe(0);
    expect(shape(journalOf(held.dir).at(-1))).toEqual([
      "2",
      "loop.stop",
      [
        ["reason", "review_unknown"],
        ["iteration", "2"],
        ["detail", 'Unrecognized verdict "MAYBE"; failing closed to UNKNOWN'],
        // Ours, after the public fields: what the run spent.
        ["cost_usd", "1.000007"],
        ["total_tokens", "1000012"],
        ["unpriced_iterations", "1"],
      ],
    ]);
  });

  it("journals a stop between iterations without an iteration, its own fields first", async () => {
    const { dir, preset } = project(false);
    expect((await run(dir, preset, {})).exitCode).toBe(3);
    const stop = journalOf(dir).at(-1);
    expect(stop?.iteration).toBeUndefined();
    expect(stop?.shape === "system" && Object.keys(stop.fields)).toEqual([
      "reason",
      "completed_iterations",
      "stopped_before_iteration",
      "max_iterations",
      "cost_usd",
      "total_tokens",
    ]);
  });
});

describe("chain records in the public autoloop's field order", () => {
  it("writes its fields first, in its order and words, ours after; reads its records back", async () => {
    const dir = tempDir();
    for (const [name, script] of [
      ["ok", "echo LOOP_COMPLETE"],
      ["bad", "exit 7"],
    ] as const) {
      mkdirSync(join(dir, "presets", name), { recursive: true });
      writeFileSync(
        join(dir, "presets", name, "autoloops.toml"),
        `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`,
      );
    }
    const keys = (topic: string) =>
      journalOf(dir)
        .filter((r) => r.topic === topic)
        .map((r) => (r.shape === "system" ? Object.keys(r.fields) : []));
    const run = await autoloop(["run", "--chain", "ok,bad", "x", "--run-id", "c", "--quiet"], {
      cwd: dir,
    });
    expect(run.exitCode).toBe(1);
    expect(keys("chain.start")[0]!.slice(0, 4)).toEqual([
      "chain_run",
      "name",
      "steps",
      "step_count",
    ]);
    expect(keys("chain.step.start")[0]!.slice(0, 5)).toEqual([
      "chain_run",
      "step",
      "preset",
      "preset_dir",
      "work_dir",
    ]);
    expect(keys("chain.step.finish")[0]!.slice(0, 4)).toEqual([
      "chain_run",
      "step",
      "preset",
      "stop_reason",
    ]);
    expect(keys("chain.complete")[0]!.slice(0, 4)).toEqual([
      "chain_run",
      "name",
      "steps_completed",
      "outcome",
    ]);
    const done = journalOf(dir).find((r) => r.topic === "chain.complete")!;
    expect(done.shape === "system" && done.fields).toMatchObject({
      outcome: "step_failed",
      status: "failed",
      steps_completed: "1",
    });
    // The public autoloop's own records (no status) read as the chains they were.
    const publicRecord = (outcome: string) =>
      decodeRecord(
        `{"chain_run": "p", "topic": "chain.complete", "fields": {"name": "p", "steps_completed": "1", "outcome": "${outcome}"}}`,
      )!;
    expect(chainStatusOf(publicRecord("all_steps_complete"))).toBe("completed");
    expect(chainStatusOf(publicRecord("step_failed"))).toBe("failed");
  });
});
