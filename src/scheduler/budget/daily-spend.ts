// What a schedule's runs spent per day over the last weeks (days of its time zone, as its
// per_day budget counts them), from the run ledger: the status page's Spend chart.
import type { RunSummary } from "../ledger/events.js";
import { plausibleUsd } from "../ledger/run-outcome.js";
import { wallClockOf } from "../timing/zone-clock.js";
import type { SpendLedger } from "./spend.js";

const DAY_MS = 86_400_000;

export interface DailySpend {
  /** Known cost of the runs launched that day, oldest day first (one per day of the axis). */
  costUsd: number[];
  /** Ended runs of unknown cost that day: shown beside the figures, never counted as free. */
  unknownCost: number[];
}

/** `count` dates ("2026-11-27") ending with `lastDay`, oldest first. */
export function dayAxis(lastDay: string, count: number): string[] {
  const last = Date.parse(`${lastDay}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    new Date(last - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** The date `instant` falls on in `timeZone`. */
export function zoneDate(instant: number, timeZone: string): string {
  return new Date(wallClockOf(instant, timeZone)).toISOString().slice(0, 10);
}

/** When a run was launched, as spend.ts counts it (a skipped slot never reaches here). */
const launchedAt = (run: RunSummary) => Date.parse(run.scheduledAt ?? run.finishedAt ?? run.slot);

/**
 * The schedule's spend on each day of `days` (consecutive dates, oldest first). Runs are walked
 * newest first and the walk ends two days before the first day (zones are less than a day off
 * UTC; the rest is a margin for a clock set back), so a call reads only the days it shows.
 */
export function dailySpend(
  ledger: SpendLedger,
  schedule: string,
  timeZone: string,
  days: readonly string[],
): DailySpend {
  const out: DailySpend = { costUsd: days.map(() => 0), unknownCost: days.map(() => 0) };
  const first = Date.parse(`${days[0]}T00:00:00Z`);
  if (Number.isNaN(first)) return out;
  for (const runId of ledger.runIdsNewestFirst(schedule)) {
    const run = ledger.summary(runId);
    if (run === undefined) continue;
    const at = launchedAt(run);
    if (at < first - 2 * DAY_MS) break;
    if (run.status === "skipped" || run.status === "running" || run.status === "pending") continue;
    const i = Math.round((Date.parse(`${zoneDate(at, timeZone)}T00:00:00Z`) - first) / DAY_MS);
    if (!(i >= 0 && i < days.length)) continue;
    const usd = plausibleUsd(run.costUsd);
    out.costUsd[i]! += usd ?? 0;
    // As the Spend table counts them (spend.ts): no figure, a partial one, or only the run's word.
    const claimed = run.spendBasis === "journal" && run.budgetUsd !== undefined;
    if (usd === undefined || (run.unpricedIterations ?? 0) > 0 || claimed) out.unknownCost[i]! += 1;
  }
  return out;
}
