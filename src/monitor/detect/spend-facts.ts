// The spend facts the monitor pages on, per schedule, from the run ledger: a budget spent for
// the day or month (the scheduler skips its slots until the period turns), and a latest run
// that cost more than `cost_factor` times the median of the schedule's last runs.
import { budgetStanding } from "../../scheduler/budget/standing.js";
import type { RunSummary } from "../../scheduler/ledger/events.js";
import type { RunLedger } from "../../scheduler/ledger/ledger.js";
import type { Schedule } from "../../scheduler/schedules/schedule-file.js";

export interface BudgetFact {
  schedule: string;
  period: "day" | "month";
  periodKey: string;
  /** ISO: when the period began (the fact's time, stable while it holds). */
  since: string;
  /** ISO: when it turns. */
  until: string;
  detail: string;
}

export interface CostlyFact {
  schedule: string;
  run: string;
  /** ISO: when the run ended. */
  at: string;
  costUsd: number;
  medianUsd: number;
  factor: number;
  /** How many earlier runs the median is of. */
  runs: number;
}

/** The schedule's budget, when it is spent for now. */
export function budgetFact(
  schedule: Schedule,
  ledger: RunLedger,
  now: number,
): BudgetFact | undefined {
  // Spent, not merely held by a running run's ceiling: that run may stop well short of it.
  const standing = budgetStanding(schedule, ledger, now, { reserved: false });
  if (standing?.kind !== "exhausted") return undefined;
  const { periods } = standing.spend;
  const start = standing.period === "day" ? periods.dayStart : periods.monthStart;
  return {
    schedule: schedule.name,
    period: standing.period,
    periodKey: standing.periodKey,
    since: new Date(start).toISOString(),
    until: new Date(standing.until).toISOString(),
    detail: standing.detail,
  };
}

/** Fewer earlier runs than this say nothing of what is usual. */
const MIN_RUNS = 3;

/** A run whose whole cost is known (no iteration of unknown cost). */
const knownCost = (r: RunSummary) =>
  r.costUsd !== undefined && r.finishedAt !== undefined && !(r.unpricedIterations ?? 0);

/** The schedule's latest priced run, when it cost more than usual (`cost_factor`). */
export function costlyFact(schedule: Schedule, ledger: RunLedger): CostlyFact | undefined {
  const factor = schedule.monitor.costFactor ?? 0;
  if (!(factor > 1)) return undefined;
  const wanted = (schedule.monitor.costRuns ?? 10) + 1;
  const priced: RunSummary[] = [];
  let looked = 0;
  // Skipped slots and runs of unknown cost are passed over, a bounded number of them.
  for (const runId of ledger.runIdsNewestFirst(schedule.name)) {
    const run = ledger.summary(runId);
    if (run !== undefined && knownCost(run)) priced.push(run);
    if (priced.length >= wanted || ++looked >= wanted * 5) break;
  }
  const [latest, ...earlier] = priced;
  if (latest === undefined || earlier.length < MIN_RUNS) return undefined;
  const medianUsd = median(earlier.map((r) => r.costUsd!));
  if (!(medianUsd > 0) || latest.costUsd! <= factor * medianUsd) return undefined;
  return {
    schedule: schedule.name,
    run: latest.runId,
    at: latest.finishedAt!,
    costUsd: latest.costUsd!,
    medianUsd,
    factor,
    runs: earlier.length,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
