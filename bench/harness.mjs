// bench/harness: a no-op agent for 1, 100 and 1,000 iterations; time to loop.start and
// per-iteration overhead of the harness beyond the agent's own time.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AUTOLOOP, cpuMs, median, report, tempDir } from "./lib.mjs";

function preset(dir) {
  const p = join(dir, "noop");
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1000\nstall_iterations = 0\n[backend]\ncommand = "true"\nprompt_mode = "file"\n`,
  );
  return p;
}

export function run(args, cwd) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, wallMs: performance.now() - t0, started, stderr }));
  });
}

export function journalStats(dir, runId) {
  const lines = readFileSync(join(dir, ".autoloop/journal.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.run === runId);
  const start = lines.find((r) => r.topic === "loop.start");
  const end = lines.at(-1);
  const agentMs = lines
    .filter((r) => r.topic === "iteration.finish")
    .reduce((s, r) => s + Number(r.fields.elapsed_s) * 1000, 0);
  return {
    startTs: Date.parse(start.ts),
    endTs: Date.parse(end.ts),
    agentMs,
    /** The harness's typical per-iteration time over iterations from..to-1. */
    typicalOverheadMs: (from, to) => interquartileMean(perIterationOverheads(lines, from, to)),
  };
}

/**
 * The mean of the middle half of `values`: a few iterations slowed by the rest of the
 * machine do not move it, and unlike a median of whole milliseconds (the journal's
 * resolution) it is not stuck on a 1 ms step.
 */
function interquartileMean(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.slice(Math.floor(sorted.length / 4), Math.ceil((sorted.length * 3) / 4));
  return middle.reduce((sum, v) => sum + v, 0) / middle.length;
}

/**
 * The harness's time in each iteration beyond the agent's: from one iteration.start to the
 * next, less the agent's elapsed time (1-based iterations from..to-1).
 */
function perIterationOverheads(lines, from, to) {
  const starts = new Map();
  const agent = new Map();
  for (const r of lines) {
    if (r.topic === "iteration.start") starts.set(+r.iteration, Date.parse(r.ts));
    if (r.topic === "iteration.finish") agent.set(+r.iteration, Number(r.fields.elapsed_s) * 1000);
  }
  const out = [];
  for (let i = from; i < to; i++) out.push(starts.get(i + 1) - starts.get(i) - agent.get(i));
  return out;
}

async function iterations(n, existingJournalLines = 0) {
  const dir = tempDir();
  const p = preset(dir);
  if (existingJournalLines > 0) {
    mkdirSync(join(dir, ".autoloop"), { recursive: true });
    const line = `{"run": "other", "iteration": "1", "topic": "iteration.finish", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "fields": {"exit_code": "0", "timed_out": false, "elapsed_s": "0.001", "output": "${"x".repeat(200)}"}}\n`;
    writeFileSync(join(dir, ".autoloop/journal.jsonl"), line.repeat(existingJournalLines));
  }
  const runId = `bench-${n}`;
  const r = await run(
    [AUTOLOOP, "run", p, "--run-id", runId, "--max-iterations", String(n), "--quiet"],
    dir,
  );
  if (r.code !== 3) throw new Error(`autoloop run exited ${r.code}: ${r.stderr}`);
  const s = journalStats(dir, runId);
  const loopMs = s.endTs - s.startTs;
  return {
    toStartMs: s.startTs - r.started,
    loopMs,
    agentMs: s.agentMs,
    overheadMs: loopMs - s.agentMs,
    typicalOverheadMs: s.typicalOverheadMs,
  };
}

/**
 * Whole-process wall time of a bare `node -e 0` and of a 1-iteration no-op run, taken in
 * alternation so that a busy machine slows both alike (median of 11 pairs each).
 */
async function sideBySide() {
  const bare = [];
  const one = [];
  const dir = tempDir();
  const p = preset(dir);
  for (let i = 0; i < 11; i++) {
    bare.push((await run(["-e", "0"], dir)).wallMs);
    const r = await run([AUTOLOOP, "run", p, "--max-iterations", "1", "--quiet"], dir);
    if (r.code !== 3) throw new Error(`autoloop run exited ${r.code}: ${r.stderr}`);
    one.push(r.wallMs);
  }
  return { bare: median(bare), one: median(one) };
}

export async function benchHarness() {
  console.log("\n== bench/harness: no-op agent (`true`), prompt by file ==");
  let ok = true;
  const { bare, one: oneRun } = await sideBySide();
  const starts = [];
  for (let i = 0; i < 5; i++) starts.push((await iterations(1)).toStartMs);
  const toStart = median(starts);
  report("bare `node -e 0` start to exit (median of 11)", bare, "ms");
  report("1-iteration no-op run, spawn to exit (median of 11, alternating)", oneRun, "ms");
  ok =
    report(
      "1-iteration no-op run vs a bare node start",
      oneRun / bare,
      "x",
      "<= 2x",
      oneRun / bare <= 2,
    ) && ok;
  ok = report("spawn → loop.start in the journal (median of 5)", toStart, "ms") && ok;
  ok =
    report(
      "loop.start beyond a bare node start",
      toStart - bare,
      "ms",
      "<= 150 ms",
      toStart - bare <= 150,
    ) && ok;
  const one = await iterations(1);
  report(
    "1 iteration: loop time / agent time",
    `${one.loopMs.toFixed(0)} / ${one.agentMs.toFixed(0)}`,
    "ms",
  );
  const hundred = await iterations(100);
  ok =
    report(
      "100 iterations: harness overhead beyond the agent",
      hundred.overheadMs,
      "ms",
      "<= 1000 ms",
      hundred.overheadMs <= 1000,
    ) && ok;
  report("100 iterations: per-iteration overhead", hundred.overheadMs / 100, "ms");
  const thousand = await iterations(1000);
  // The harness's cost is its overhead beyond the agent's own time (as in the 100-iteration
  // target); the total also carries the agent's spawn time, which varies with machine load.
  const ratio = thousand.overheadMs / hundred.overheadMs;
  report(
    "1,000 iterations: loop time / agent time",
    `${thousand.loopMs.toFixed(0)} / ${thousand.agentMs.toFixed(0)}`,
    "ms",
  );
  report("1,000 iterations: per-iteration overhead", thousand.overheadMs / 1000, "ms");
  report("1,000 vs 100 iterations: harness overhead ratio", ratio, "x");
  // Growth shows within one run: the last 300 iterations against the first 300 (each
  // run's own noise, not a second process's, decides it), each window's interquartile mean
  // so that a few iterations slowed by the rest of the machine do not decide it either.
  const first = thousand.typicalOverheadMs(2, 302);
  const last = thousand.typicalOverheadMs(699, 999);
  ok =
    report(
      "1,000 iterations: typical iteration overhead (interquartile mean), last 300 vs first 300",
      last / first,
      "x",
      "<= 1.25x (no growth with iterations)",
      last / first <= 1.25,
    ) && ok;
  const big = await iterations(100, 200_000);
  report(
    "100 iterations after 200,000 journal lines of another run: overhead",
    big.overheadMs,
    "ms",
  );
  // The two runs' interquartile means (iterations 2-99), for the same reason.
  const longRatio = big.typicalOverheadMs(2, 100) / hundred.typicalOverheadMs(2, 100);
  ok =
    report(
      "typical iteration overhead with a long journal vs an empty one",
      longRatio,
      "x",
      "<= 1.5x (no growth with journal length)",
      longRatio <= 1.5,
    ) && ok;
  const waiting = await waitingCpu();
  ok =
    report(
      "a run waiting 5 s for a human's answer (ask_poll_ms 500): CPU used",
      waiting,
      "ms",
      "<= 50 ms (1% of a core: no busy waiting)",
      waiting <= 50,
    ) && ok;
  return ok;
}

/** How much CPU a run uses while it waits on a question: measured over 5 s of waiting. */
export async function waitingCpu() {
  const dir = tempDir();
  const p = join(dir, "asker");
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1\nask_timeout = "8s"\n[backend]\ncommand = "sh"\nargs = ["-c", "$AUTOLOOP_BIN emit human.ask 'May I?'"]\nprompt_mode = "file"\n`,
  );
  const child = spawn(process.execPath, [AUTOLOOP, "run", p, "--run-id", "w1", "--quiet"], {
    cwd: dir,
    stdio: "ignore",
  });
  const journal = join(dir, ".autoloop/journal.jsonl");
  const asked = () => {
    try {
      return readFileSync(journal, "utf8").includes('"ask.pending"');
    } catch {
      return false;
    }
  };
  while (!asked()) await new Promise((r) => setTimeout(r, 50));
  const before = cpuMs(child.pid);
  await new Promise((r) => setTimeout(r, 5000));
  const used = cpuMs(child.pid) - before;
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  return used;
}
