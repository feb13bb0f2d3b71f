// bench/harness: a no-op agent for 1, 100 and 1,000 iterations; time to loop.start and
// per-iteration overhead of the harness beyond the agent's own time.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AUTOLOOP, median, report, tempDir } from "./lib.mjs";

function preset(dir) {
  const p = join(dir, "noop");
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1000\nstall_iterations = 0\n[backend]\ncommand = "true"\nprompt_mode = "file"\n`,
  );
  return p;
}

function run(args, cwd) {
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

function journalStats(dir, runId) {
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
  return { startTs: Date.parse(start.ts), endTs: Date.parse(end.ts), agentMs };
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
  };
}

async function bareNode() {
  const times = [];
  for (let i = 0; i < 5; i++) times.push((await run(["-e", ""], process.cwd())).wallMs);
  return median(times);
}

export async function benchHarness() {
  console.log("\n== bench/harness: no-op agent (`true`), prompt by file ==");
  let ok = true;
  const bare = await bareNode();
  const starts = [];
  for (let i = 0; i < 5; i++) starts.push((await iterations(1)).toStartMs);
  const toStart = median(starts);
  report("bare `node -e ''` start to exit (median of 5)", bare, "ms");
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
  ok =
    report(
      "1,000 vs 100 iterations: harness overhead ratio",
      ratio,
      "x",
      "<= 10x (linear)",
      ratio <= 10,
    ) && ok;
  const big = await iterations(100, 200_000);
  report(
    "100 iterations after 200,000 journal lines of another run: overhead",
    big.overheadMs,
    "ms",
  );
  ok =
    report(
      "overhead with a long journal vs an empty one",
      big.overheadMs / hundred.overheadMs,
      "x",
      "<= 1.5x (no growth with journal length)",
      big.overheadMs / hundred.overheadMs <= 1.5,
    ) && ok;
  return ok;
}
