// The morning digest's content: per schedule the runs of the period with outcome, cost and
// duration, open questions, open incidents and spend; built purely from facts read elsewhere.
// A zod schema because the outbox stores it with its message and reads it back.
import * as z from "zod";
import type { RunSummary } from "../../scheduler/ledger/events.js";

/** Runs listed per schedule; the rest are counted, never dropped silently. */
export const DIGEST_RUNS_PER_SCHEDULE = 20;

const digestRunSchema = z.object({
  runId: z.string(),
  status: z.string(),
  at: z.string(),
  durationMs: z.number().optional(),
  costUsd: z.number().optional(),
  unpricedIterations: z.number().optional(),
  stopReason: z.string().optional(),
  /** The pull request the run's commits went to, when the ledger knows one. */
  pullRequest: z.string().optional(),
  /** The report files it published (`[outputs] publish`), as its journal names them. */
  reports: z.array(z.string()).optional(),
});

const digestScheduleSchema = z.object({
  schedule: z.string(),
  /** Runs of the period by status ("completed": 3). */
  counts: z.record(z.string(), z.number()),
  /** Known cost of the period's runs, and how many ran at an unknown cost. */
  costUsd: z.number(),
  unknownCost: z.number(),
  /** Newest first. */
  runs: z.array(digestRunSchema),
  /** Runs of the period beyond those listed. */
  more: z.number(),
});

export const digestReportSchema = z.object({
  name: z.string(),
  since: z.string(),
  until: z.string(),
  timezone: z.string(),
  schedules: z.array(digestScheduleSchema),
  questions: z.array(
    z.object({ schedule: z.string().optional(), run: z.string().optional(), summary: z.string() }),
  ),
  incidents: z.array(
    z.object({ slug: z.string(), name: z.string(), status: z.string(), priority: z.string() }),
  ),
  /** One `status`-style line per schedule with a budget or spend this month. */
  spend: z.array(z.object({ schedule: z.string(), line: z.string(), exhausted: z.boolean() })),
});
export type DigestReport = z.infer<typeof digestReportSchema>;
export type DigestSchedule = z.infer<typeof digestScheduleSchema>;
export type DigestRun = z.infer<typeof digestRunSchema>;

/** What the digest is built from (digest/gather.ts reads it from the state dir). */
export interface DigestFacts {
  name: string;
  since: number;
  until: number;
  timezone: string;
  /** The schedules the digest covers, by name. */
  schedules: readonly string[];
  /** A schedule's runs, newest first (the walk stops once they are older than `since`). */
  runsOf: (schedule: string) => Iterable<RunSummary>;
  /** The files a run published, when the monitor's run tracker knows of any. */
  reportsOf?: (runId: string) => readonly string[] | undefined;
  questions: DigestReport["questions"];
  incidents: DigestReport["incidents"];
  spend: DigestReport["spend"];
}

/** When a run happened, for the period: its end, else its start, else its slot. */
const runTime = (r: RunSummary): number => Date.parse(r.finishedAt ?? r.startedAt ?? r.slot);

export function buildDigest(facts: DigestFacts): DigestReport {
  const schedules: DigestSchedule[] = [];
  for (const name of facts.schedules) {
    const row = scheduleOf(name, facts);
    if (row !== undefined) schedules.push(row);
  }
  return {
    name: facts.name,
    since: new Date(facts.since).toISOString(),
    until: new Date(facts.until).toISOString(),
    timezone: facts.timezone,
    schedules,
    questions: facts.questions,
    incidents: facts.incidents,
    spend: facts.spend,
  };
}

/** A schedule's runs of the period; undefined when it had none. */
function scheduleOf(name: string, facts: DigestFacts): DigestSchedule | undefined {
  const row: DigestSchedule = {
    schedule: name,
    counts: {},
    costUsd: 0,
    unknownCost: 0,
    runs: [],
    more: 0,
  };
  const inPeriod: { run: RunSummary; at: number }[] = [];
  for (const r of facts.runsOf(name)) {
    const at = runTime(r);
    // Runs come newest first by creation; a day's margin lets a long run that ended late count.
    if (at < facts.since - 86_400_000) break;
    if (at >= facts.since && at < facts.until) inPeriod.push({ run: r, at });
  }
  // Newest first by when they ended: a retry or a catch-up is created out of slot order.
  inPeriod.sort((a, b) => b.at - a.at);
  for (const { run: r, at } of inPeriod) {
    row.counts[r.status] = (row.counts[r.status] ?? 0) + 1;
    if (r.costUsd !== undefined) row.costUsd += r.costUsd;
    if (r.status !== "skipped" && (r.costUsd === undefined || (r.unpricedIterations ?? 0) > 0))
      row.unknownCost++;
    if (row.runs.length < DIGEST_RUNS_PER_SCHEDULE)
      row.runs.push(digestRun(r, at, facts.reportsOf?.(r.runId)));
    else row.more++;
  }
  return inPeriod.length === 0 ? undefined : row;
}

function digestRun(r: RunSummary, at: number, reports?: readonly string[]): DigestRun {
  const run: DigestRun = { runId: r.runId, status: r.status, at: new Date(at).toISOString() };
  if (r.durationMs !== undefined) run.durationMs = r.durationMs;
  if (r.costUsd !== undefined) run.costUsd = r.costUsd;
  if (r.unpricedIterations) run.unpricedIterations = r.unpricedIterations;
  if (r.stopReason !== undefined) run.stopReason = r.stopReason;
  // Set once runs deliver pull requests; older ledgers and other runs lack it.
  const pr = (r as { pullRequest?: unknown }).pullRequest;
  if (typeof pr === "string" && pr !== "") run.pullRequest = pr;
  if (reports !== undefined && reports.length > 0) run.reports = [...reports];
  return run;
}

/** "12 runs: 10 completed, 2 failed; $4.20" over every schedule. */
export function digestHeadline(report: DigestReport): string {
  const counts = new Map<string, number>();
  let total = 0;
  let cost = 0;
  for (const s of report.schedules) {
    for (const [status, n] of Object.entries(s.counts)) {
      counts.set(status, (counts.get(status) ?? 0) + n);
      total += n;
    }
    cost += s.costUsd;
  }
  if (total === 0) return "no runs";
  const parts = [...counts].map(([status, n]) => `${n} ${status.replace(/_/g, " ")}`);
  return `${total} run${total === 1 ? "" : "s"}: ${parts.join(", ")}; $${cost.toFixed(2)}`;
}
