// `autoloop inspect journal|tasks|runs|<artifact>`: a work dir's journal, tasks, registry, and
// a run's artifacts (./autoloop-inspect-artifacts.ts).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { chainLineage, chainStateMd } from "../harness/artifacts/chain-lineage.js";
import { type IterationUsage, iterationUsage } from "../harness/artifacts/iteration-usage.js";
import { type RunUsage, runUsage } from "../harness/artifacts/usage.js";
import { isValidRunId } from "../harness/run-id.js";
import { TaskStore } from "../harness/tasks/store.js";
import type { JournalRecord } from "../journal/codec.js";
import { readJournal } from "../journal/reader.js";
import { readRegistry } from "../journal/registry-view.js";
import { recordSummary } from "../journal/summary.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { ARTIFACT_VIEWS, inspectArtifact } from "./autoloop-inspect-artifacts.js";
import { renderTaskList } from "./autoloop-task.js";
import { flag, intOption, parse, str, table } from "./common.js";

const HELP = `Usage: autoloop inspect <view> [--run ID] [--format md|json] [--work-dir DIR]

  autoloop inspect runs                  runs recorded in the registry, newest last
  autoloop inspect journal --run ID      one run's journal records (all runs without --run)
  autoloop inspect tasks --run ID        one run's tasks (the newest run without --run)
  autoloop inspect usage                 each run's tokens and cost; with --run, per agent call

A run's artifacts, projections of the journal (the newest run without --run):
  autoloop inspect scratchpad            what each iteration did: roles, events, exit, output
  autoloop inspect prompt [N]            the prompt of iteration N (or --iteration N; default: the last)
  autoloop inspect output [N]            the agent's output in iteration N
  autoloop inspect memory                the project and run memory the run's prompts show
  autoloop inspect chain                 a chain's steps and outcomes (--run <chain-run>)
  autoloop inspect chain --all           every chain and spawn, in journal order (--json: the lineage)
  autoloop inspect metrics               iterations, agent and harness time, events, refusals

--work-dir DIR     the directory holding .autoloop/ (default: current dir)
--format md|json   markdown (default for artifacts) or JSON; --json is --format json
`;

/** What every view is handed: the parsed line, the `.autoloop/` folder, the run, the format. */
interface InspectContext {
  p: ReturnType<typeof parse>;
  what: string;
  dir: string;
  run: string | undefined;
  format: "md" | "json";
}

const journalOf = (c: InspectContext) => join(c.dir, "journal.jsonl");

function inspectJournal(c: InspectContext): number {
  const { items, skipped } = readJournal(journalOf(c));
  const records = c.run === undefined ? items : items.filter((r) => r.run === c.run);
  // Asked for one run and it is not there: a lookup that found nothing, not an empty answer.
  if (c.run !== undefined && records.length === 0)
    throw new UserError(
      `autoloop inspect journal: no run ${c.run} in ${journalOf(c)}; \`autoloop inspect runs\` lists the runs there`,
      1,
    );
  if (c.format === "json") process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
  else {
    process.stdout.write(
      records.length === 0
        ? "No journal records.\n"
        : `${table(records.map((r) => [r.ts, r.run, r.iteration ?? "", r.topic, recordSummary(r)].map((x) => printable(x))))}\n`,
    );
  }
  if (skipped > 0) process.stderr.write(`(${skipped} unreadable journal lines skipped)\n`);
  return 0;
}

function inspectRuns(c: InspectContext): number {
  // Newest first, as `autoloop-cron runs` lists them.
  const runs = [...readRegistry(journalOf(c)).values()]
    .filter((r) => c.run === undefined || r.run_id === c.run)
    .reverse();
  if (c.format === "json") process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
  else if (runs.length === 0) process.stdout.write("No runs.\n");
  else {
    const rows = [["RUN", "STATUS", "PRESET", "TRIGGER", "ITER", "UPDATED", "STOP REASON"]];
    // Registries from other writers may lack fields: show what is there.
    const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));
    for (const r of runs) {
      const iter = `${text(r.iteration)}/${text(r.max_iterations)}`;
      rows.push([
        r.run_id,
        r.status,
        text(r.preset),
        text(r.trigger),
        iter,
        text(r.updated_at),
        text(r.stop_reason),
      ]);
    }
    process.stdout.write(`${table(rows)}\n`);
  }
  return 0;
}

function inspectUsage(c: InspectContext): number {
  const { items } = readJournal(journalOf(c));
  if (c.run !== undefined) return inspectRunUsage(c, items, c.run);
  const usage = runUsage(items);
  if (c.format === "json") process.stdout.write(`${JSON.stringify(usage, null, 2)}\n`);
  else if (usage.length === 0) process.stdout.write("No runs.\n");
  else process.stdout.write(`${usageTable(usage)}\n`);
  return 0;
}

/** One run's usage per agent call, as the public autoloop prints it. */
function inspectRunUsage(c: InspectContext, items: JournalRecord[], run: string): number {
  if (!items.some((r) => r.run === run))
    throw new UserError(
      `autoloop inspect usage: no records of run ${run} in ${journalOf(c)}; \`autoloop inspect runs\` lists the runs there`,
      1,
    );
  const usage = iterationUsage(items, run);
  if (c.format === "json") process.stdout.write(`${JSON.stringify(usage, null, 2)}\n`);
  else process.stdout.write(`${iterationUsageText(usage)}\n`);
  return 0;
}

function inspectTasks(c: InspectContext): number {
  const runId = c.run ?? [...readRegistry(journalOf(c)).keys()].at(-1);
  if (runId === undefined)
    throw new UserError(`autoloop inspect tasks: no runs in ${c.dir}; pass --run ID`);
  const store = new TaskStore(join(c.dir, "runs", runId, "tasks.jsonl"));
  const view = store.view();
  if (c.format === "json")
    process.stdout.write(`${JSON.stringify({ run: runId, file: store.path, ...view }, null, 2)}\n`);
  else process.stdout.write(`Run ${runId}\n${renderTaskList(view)}`);
  return 0;
}

/** A run's artifact: `inspect prompt 3`, as the public autoloop takes it, or --iteration 3. */
function inspectArtifactView(c: InspectContext): number {
  const positional = c.p.positionals[1];
  if (positional !== undefined && !/^[1-9]\d*$/.test(positional))
    throw new UserError(
      `autoloop inspect ${c.what}: ${JSON.stringify(positional)} is not an iteration number`,
    );
  const iteration =
    intOption(c.p, "iteration", "autoloop inspect") ??
    (positional === undefined ? undefined : Number(positional));
  const options = { autoloopDir: c.dir, run: c.run, iteration, format: c.format };
  process.stdout.write(inspectArtifact(c.what, options));
  return 0;
}

/** `inspect chain --all`: every chain and spawn of the work dir (the public `inspect chain`). */
function inspectChain(c: InspectContext): number {
  if (!flag(c.p, "all")) return inspectArtifactView(c);
  const { items } = readJournal(journalOf(c));
  process.stdout.write(
    c.format === "json"
      ? `${JSON.stringify(chainLineage(items), null, 2)}\n`
      : `${chainStateMd(items)}\n`,
  );
  return 0;
}

const VIEWS: Record<string, (c: InspectContext) => number> = {
  journal: inspectJournal,
  runs: inspectRuns,
  usage: inspectUsage,
  tasks: inspectTasks,
  ...Object.fromEntries(ARTIFACT_VIEWS.map((view) => [view, inspectArtifactView])),
  chain: inspectChain,
};

export async function inspectCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      run: { type: "string" },
      json: { type: "boolean" },
      format: { type: "string" },
      iteration: { type: "string" },
      "work-dir": { type: "string" },
      all: { type: "boolean" },
    },
    "autoloop inspect",
  );
  const [what] = p.positionals;
  if (flag(p, "help") || what === undefined) {
    process.stdout.write(HELP);
    return what === undefined && !flag(p, "help") ? 2 : 0;
  }
  const workDir = resolve(str(p, "work-dir") ?? process.cwd());
  if (!existsSync(workDir))
    throw new UserError(
      `autoloop inspect: --work-dir ${workDir} does not exist; pass the project folder the runs ran in`,
    );
  const run = str(p, "run");
  if (run !== undefined && !isValidRunId(run))
    throw new UserError(`autoloop inspect: --run ${JSON.stringify(run)} is not a valid run id`);
  const format = str(p, "format") ?? (flag(p, "json") ? "json" : "md");
  if (format !== "md" && format !== "json")
    throw new UserError(
      `autoloop inspect: --format must be md or json, found ${JSON.stringify(format)}`,
    );
  const view = Object.hasOwn(VIEWS, what) ? VIEWS[what] : undefined;
  if (view === undefined)
    throw new UserError(
      `autoloop inspect: unknown view ${JSON.stringify(what)}; expected journal, tasks, runs, usage, ${ARTIFACT_VIEWS.join(", ")}`,
    );
  return view({ p, what, dir: join(workDir, ".autoloop"), run, format });
}

/** Runs' usage as a table; a cost with unpriced iterations says so ("0.0123 + 2 unknown"). */
function usageTable(usage: RunUsage[]): string {
  const rows = [["RUN", "ITER", "INPUT", "OUTPUT", "CACHE R/W", "TOKENS", "COST USD", "MODELS"]];
  for (const u of usage) {
    const known = u.cost_usd.toFixed(4);
    const cost =
      u.unpriced_iterations === 0
        ? known
        : u.unpriced_iterations === u.iterations
          ? "unknown"
          : `${known} + ${u.unpriced_iterations} unknown`;
    rows.push([
      u.run,
      String(u.iterations),
      String(u.input_tokens),
      String(u.output_tokens),
      `${u.cache_read_tokens}/${u.cache_write_tokens}`,
      String(u.total_tokens),
      cost,
      u.models.join(","),
    ]);
  }
  return table(rows);
}

/** The public autoloop's per-call table and totals line; an unknown cost says so, not 0. */
function iterationUsageText({ rows, totals }: IterationUsage): string {
  if (rows.length === 0)
    return "No backend usage telemetry recorded for this run.\n(Token and cost figures come from agents that report usage: docs/formats.md, backend.usage.)";
  const header = ["iter", "input", "output", "cache_r", "cache_w", "total", "cost_usd", "ctx%"];
  const body = rows.map((r) => [
    r.iteration || "-",
    String(r.inputTokens),
    String(r.outputTokens),
    String(r.cacheReadTokens),
    String(r.cacheWriteTokens),
    String(r.totalTokens),
    r.costSource === "unknown" ? "unknown" : r.costUsd.toFixed(4),
    r.contextPercent === undefined ? "-" : String(r.contextPercent),
  ]);
  const unknown =
    totals.unpricedIterations > 0
      ? `, ${totals.unpricedIterations} agent call(s) of unknown cost`
      : "";
  const summary = `totals: ${totals.iterations} iteration(s), ${totals.totalTokens} tokens, $${totals.costUsd.toFixed(4)}${unknown}`;
  return ["## Usage", "", table([header, ...body]), "", summary].join("\n");
}
