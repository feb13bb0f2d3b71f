// What a schedule's runs spent today and this month (days and months of its time zone),
// derived from the run ledger every time it is asked: nothing to drift, nothing lost in a
// crash. A run counts in the period it was launched in; a running run counts the ceiling it
// was launched with (what it may still spend), so two runs at once cannot both spend the rest,
// and so does an ended run whose spend is unknown (never 0) or stated only by its journal
// (at least its ceiling: the run can rewrite that file).

import type { RunSummary } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { plausibleTokens, plausibleUsd } from "../ledger/run-outcome.js";
import { instantsOfWall, wallClockOf } from "../timing/zone-clock.js";

const DAY_MS = 86_400_000;

/** The day and month `now` falls in, in `timeZone`: their starts (epoch ms) and names. */
export interface SpendPeriods {
  /** "2026-11-27" */
  day: string;
  /** "2026-11" */
  month: string;
  dayStart: number;
  monthStart: number;
  /** When the next day and month begin. */
  nextDay: number;
  nextMonth: number;
}

export interface PeriodSpend {
  /** The known cost of ended runs, in US dollars. */
  costUsd: number;
  tokens: number;
  /** Ended runs that launched (skipped slots are not runs). */
  runs: number;
  /** Ended runs whose cost is unknown or partly unknown: the agent reported no usage. */
  unknownCost: number;
  /** Runs still running, and what they may still spend (their ceilings). */
  running: number;
  reservedUsd: number;
  reservedTokens: number;
}

/**
 * What ended runs of unknown spend count for beyond their known figures: their ceilings
 * (`budgetUsd`, `budgetTokens`), or Infinity for a run launched without one (the budget is
 * spent). Budgets add it to what was spent; views show the known figures.
 */
export interface UnknownSpend {
  usd: number;
  tokens: number;
}

export interface ScheduleSpend {
  periods: SpendPeriods;
  day: PeriodSpend;
  month: PeriodSpend;
  unknown: { day: UnknownSpend; month: UnknownSpend };
}

export type SpendLedger = Pick<RunLedger, "runIdsNewestFirst" | "summary">;

/** The instant a wall-clock time of `timeZone` happens (the first, or the end of a DST gap). */
function instantOf(wall: number, timeZone: string): number {
  const at = instantsOfWall(wall, timeZone);
  return at.kind === "exact" ? at.at : at.kind === "overlap" ? at.earlier : at.gapEnd;
}

export function spendPeriods(now: number, timeZone: string): SpendPeriods {
  const wall = new Date(wallClockOf(now, timeZone));
  const y = wall.getUTCFullYear();
  const m = wall.getUTCMonth();
  const d = wall.getUTCDate();
  return {
    day: wall.toISOString().slice(0, 10),
    month: wall.toISOString().slice(0, 7),
    dayStart: instantOf(Date.UTC(y, m, d), timeZone),
    monthStart: instantOf(Date.UTC(y, m, 1), timeZone),
    nextDay: instantOf(Date.UTC(y, m, d + 1), timeZone),
    nextMonth: instantOf(Date.UTC(y, m + 1, 1), timeZone),
  };
}

const none = (): PeriodSpend => ({
  costUsd: 0,
  tokens: 0,
  runs: 0,
  unknownCost: 0,
  running: 0,
  reservedUsd: 0,
  reservedTokens: 0,
});

/** When a run was launched (a skipped slot: when it was skipped). */
function launchedAt(run: RunSummary): number {
  return Date.parse(run.scheduledAt ?? run.finishedAt ?? run.slot);
}

function add(spend: PeriodSpend, unknown: UnknownSpend, run: RunSummary): void {
  if (run.status === "running" || run.status === "pending") {
    spend.running += 1;
    spend.reservedUsd += run.budgetUsd ?? 0;
    spend.reservedTokens += run.budgetTokens ?? 0;
    return;
  }
  spend.runs += 1;
  const usd = plausibleUsd(run.costUsd);
  const tokens = plausibleTokens(run.tokens);
  spend.costUsd += usd ?? 0;
  spend.tokens += tokens ?? 0;
  // Only the run's journal says it (the run can rewrite that): at least its ceiling, if it had one.
  const claimed = run.spendBasis === "journal";
  // Unknown is never free: it counts as the run's ceiling (what it was allowed to spend).
  if (
    usd === undefined ||
    (run.unpricedIterations ?? 0) > 0 ||
    (claimed && run.budgetUsd !== undefined)
  ) {
    spend.unknownCost += 1;
    unknown.usd += Math.max(0, (run.budgetUsd ?? Number.POSITIVE_INFINITY) - (usd ?? 0));
  }
  if (tokens === undefined || (claimed && run.budgetTokens !== undefined))
    unknown.tokens += Math.max(0, (run.budgetTokens ?? Number.POSITIVE_INFINITY) - (tokens ?? 0));
}

/**
 * The schedule's spend today and this month. Runs are walked newest first and the walk ends
 * two days before the month began (a margin for a clock set back), so a call reads this
 * month's runs only.
 */
export function scheduleSpend(
  ledger: SpendLedger,
  schedule: string,
  timeZone: string,
  now: number,
): ScheduleSpend {
  const periods = spendPeriods(now, timeZone);
  const day = none();
  const month = none();
  const unknown = { day: { usd: 0, tokens: 0 }, month: { usd: 0, tokens: 0 } };
  for (const runId of ledger.runIdsNewestFirst(schedule)) {
    const run = ledger.summary(runId);
    if (run === undefined) continue;
    const at = launchedAt(run);
    if (at < periods.monthStart - 2 * DAY_MS) break;
    if (run.status === "skipped" || !(at >= periods.monthStart)) continue;
    add(month, unknown.month, run);
    if (at >= periods.dayStart) add(day, unknown.day, run);
  }
  return { periods, day, month, unknown };
}

/** "$0.0123", "$0.0123 + 2 unknown" (iterations of unknown cost), "" when the run did not say. */
export function costText(r: Pick<RunSummary, "costUsd" | "unpricedIterations">): string {
  if (r.costUsd === undefined) return "";
  const known = `$${r.costUsd.toFixed(4)}`;
  return r.unpricedIterations ? `${known} + ${r.unpricedIterations} unknown` : known;
}

/** "$3.20" (cents under $100, whole dollars from there; tiny amounts to the tenth of a cent). */
export function usd(amount: number): string {
  if (amount >= 100) return `$${Math.round(amount).toLocaleString("en-US")}`;
  if (amount > 0 && amount < 0.01) return `$${amount.toFixed(3)}`;
  return `$${amount.toFixed(2)}`;
}
