// bench/spend: what accounting for spend costs. The harness's per-iteration overhead with an
// agent that reports usage and a cost budget to check, against the same agent reporting none;
// and `autoloop-cron status` (which sums each schedule's spend from the ledger) with 10,000
// runs this month, against the same status with an empty ledger.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { journalStats, run } from "./harness.mjs";
import { AUTOLOOP, AUTOLOOP_CRON, median, report, tempDir } from "./lib.mjs";

const ITERATIONS = 100;

/** A preset whose agent is `sh -c SCRIPT`; `extra` adds [event_loop] keys. */
function preset(dir, script, extra = "") {
  const p = join(dir, "agent");
  mkdirSync(p, { recursive: true });
  writeFileSync(
    join(p, "autoloops.toml"),
    `[event_loop]\nmax_iterations = ${ITERATIONS}\nstall_iterations = 0\n${extra}\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\nprompt_mode = "file"\n`,
  );
  return p;
}

/** The harness's typical per-iteration overhead (interquartile mean, iterations 2-99). */
async function overhead(script, extra) {
  const dir = tempDir();
  const p = preset(dir, script, extra);
  const runId = "bench-spend";
  const r = await run(
    [AUTOLOOP, "run", p, "--run-id", runId, "--max-iterations", String(ITERATIONS), "--quiet"],
    dir,
  );
  if (r.code !== 3) throw new Error(`autoloop run exited ${r.code}: ${r.stderr}`);
  return journalStats(dir, runId).typicalOverheadMs(2, ITERATIONS);
}

const USAGE =
  '{"model":"claude-sonnet-4-5","input_tokens":1200,"output_tokens":80,"cache_read_tokens":300,"cache_write_tokens":50,"cost_usd":0.005}';

async function accounting() {
  // Alternating runs, so that a busy machine slows both alike; the median of 5 each.
  const plain = [];
  const counted = [];
  for (let i = 0; i < 5; i++) {
    plain.push(await overhead("true"));
    counted.push(
      await overhead(`printf '%s' '${USAGE}' > "$AUTOLOOP_USAGE_FILE"`, "max_cost_usd = 1000"),
    );
  }
  return { plain: median(plain), counted: median(counted) };
}

const pad = (n, w = 2) => String(n).padStart(w, "0");
const stamp = (d) =>
  `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;

/**
 * A config with `schedules` preset schedules with budgets, and `runs` ended runs this month;
 * `o.days`: spread over the last that many days instead, and `o.http`: the daemon's listen.
 */
export function ledgerWorld(schedules, runs, o = {}) {
  const root = tempDir("autoloop-bench-spend-");
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  writeFileSync(
    join(root, "autoloop-cron.toml"),
    `state_dir = "state"\n[http]\nlisten = "${o.http ?? ""}"\n[defaults]\ncatch_up = "none"\n`,
  );
  let text = "";
  for (let s = 0; s < schedules; s++)
    text += `[[schedule]]\nname = "job-${s}"\ncron = "${o.cron ?? "*/5 * * * *"}"\npreset = "demo"\nobjective = "x"\nproject_dir = "work"\nbudget = { per_run = 1.0, per_day = 500.0, per_month = 9000.0 }\n\n`;
  writeFileSync(join(root, "schedules", "jobs.toml"), text);
  const state = join(root, "state");
  const index = [];
  const slots = [];
  const byDate = new Map();
  // Every run this month (before now), spread over the month's first days: status walks all.
  const now = Date.now();
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  const from = o.days === undefined ? monthStart : now - o.days * 86_400_000;
  const step = Math.max(1000, Math.floor((now - from) / (runs + 1)));
  for (let i = 0; i < runs; i++) {
    const schedule = `job-${i % schedules}`;
    const slot = new Date(from + (i + 1) * step);
    const runId = `${schedule}-${stamp(slot)}-${i.toString(36).padStart(5, "0")}`;
    const iso = slot.toISOString();
    const date = iso.slice(0, 10);
    const key = `${schedule}@${iso}`;
    index.push(JSON.stringify({ runId, date, schedule }));
    slots.push(JSON.stringify({ ts: iso, key, runId }));
    const lines = [
      {
        ts: iso,
        event: "scheduled",
        runId,
        schedule,
        slot: iso,
        key,
        trigger: "cron",
        kind: "preset",
        argv: ["autoloop"],
        cwd: join(root, "work"),
        budgetUsd: 1,
      },
      {
        ts: iso,
        event: "started",
        runId,
        pid: 1,
        outputPath: "o",
        journalPath: "j",
        journalOffset: 0,
        pgid: 1,
      },
      {
        ts: iso,
        event: "finished",
        runId,
        // One run in seven failed, when asked for a mix (the charts draw both).
        status: o.days !== undefined && i % 7 === 3 ? "failed" : "completed",
        basis: "journal",
        durationMs: o.days === undefined ? 60000 : 60000 + (i % 13) * 5000,
        costUsd: 0.0123,
        tokens: 4567,
      },
    ];
    if (!byDate.has(date)) byDate.set(date, []);
    byDate.get(date).push([runId, lines.map((l) => JSON.stringify(l)).join("\n")]);
  }
  for (const [date, files] of byDate) {
    mkdirSync(join(state, "runs", date), { recursive: true });
    for (const [runId, text] of files)
      writeFileSync(join(state, "runs", date, `${runId}.jsonl`), `${text}\n`);
  }
  mkdirSync(join(state, "runs"), { recursive: true });
  writeFileSync(join(state, "runs", "index.jsonl"), index.length ? `${index.join("\n")}\n` : "");
  writeFileSync(join(state, "slots.jsonl"), slots.length ? `${slots.join("\n")}\n` : "");
  return join(root, "autoloop-cron.toml");
}

async function statusMs(config) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const r = await run([AUTOLOOP_CRON, "status", "--json", "--config", config], process.cwd());
    times.push(r.wallMs);
  }
  return median(times);
}

export async function benchSpend() {
  console.log("\n== bench/spend: accounting per iteration, and status over 10,000 runs ==");
  let ok = true;
  const { plain, counted } = await accounting();
  report("typical iteration overhead, agent reporting no usage (median of 5 runs)", plain, "ms");
  report("typical iteration overhead, usage reported and a cost budget checked", counted, "ms");
  ok =
    report(
      "iteration overhead with spend accounting vs without",
      counted / plain,
      "x",
      "<= 1.25x (no measurable time)",
      counted / plain <= 1.25,
    ) && ok;
  const empty = await statusMs(ledgerWorld(20, 0));
  const full = await statusMs(ledgerWorld(20, 10_000));
  report("`status --json`, 20 budgeted schedules, empty ledger (median of 5)", empty, "ms");
  ok =
    report(
      "`status --json` with 10,000 runs this month in the ledger (median of 5)",
      full,
      "ms",
      "< 1000 ms",
      full < 1000,
    ) && ok;
  report("status with 10,000 runs vs an empty ledger", full / empty, "x");
  return ok;
}
