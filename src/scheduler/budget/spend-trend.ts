// The last weeks' spend per day of the schedules that spend, for the status page's Spend chart:
// the biggest spenders each on their own, the rest together, each with its budget.
import type { Schedule } from "../schedules/schedule-file.js";
import { type DailySpend, dailySpend, dayAxis, zoneDate } from "./daily-spend.js";
import type { SpendLedger } from "./spend.js";
import { budgetOfSchedule } from "./standing.js";

export interface SpendSeries extends DailySpend {
  /** A schedule's name, or "N other schedules". */
  name: string;
  /** How many schedules it adds up (1 for a schedule of its own). */
  schedules: number;
  perDayUsd?: number;
  perMonthUsd?: number;
}

export interface SpendTrend {
  /** The dates of the axis, oldest first; a schedule's runs count on its own zone's dates. */
  days: string[];
  series: SpendSeries[];
}

export interface SpendTrendOptions {
  /** Days on the axis (default 30). */
  days?: number;
  /** Schedules shown on their own, the biggest spenders; the rest are summed (default 6). */
  shown?: number;
}

const total = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The trend ending today (the latest "today" of the schedules' zones). Only schedules with
 * runs are read, and a schedule is shown when it spent in these days or has a dollar budget.
 */
export function spendTrend(
  schedules: ReadonlyMap<string, Schedule>,
  ledger: SpendLedger & { schedulesWithRuns(): Iterable<string> },
  now: number,
  options: SpendTrendOptions = {},
): SpendTrend {
  const withRuns = [...ledger.schedulesWithRuns()].flatMap((n) => schedules.get(n) ?? []);
  const zones = new Set(withRuns.map((s) => s.timezone));
  const today =
    [...zones]
      .map((z) => zoneDate(now, z))
      .sort()
      .at(-1) ?? zoneDate(now, "UTC");
  const days = dayAxis(today, options.days ?? 30);
  const all: SpendSeries[] = [];
  for (const s of withRuns) {
    const budget = budgetOfSchedule(s);
    const spent = dailySpend(ledger, s.name, s.timezone, days);
    const dollarBudget = budget?.perDayUsd !== undefined || budget?.perMonthUsd !== undefined;
    if (total(spent.costUsd) === 0 && !dollarBudget) continue;
    const series: SpendSeries = { name: s.name, schedules: 1, ...spent };
    if (budget?.perDayUsd !== undefined) series.perDayUsd = budget.perDayUsd;
    if (budget?.perMonthUsd !== undefined) series.perMonthUsd = budget.perMonthUsd;
    all.push(series);
  }
  all.sort((a, b) => total(b.costUsd) - total(a.costUsd) || (a.name < b.name ? -1 : 1));
  const shown = options.shown ?? 6;
  if (all.length <= shown + 1) return { days, series: all };
  const rest = all.slice(shown);
  const other: SpendSeries = {
    name: `${rest.length} other schedules`,
    schedules: rest.length,
    costUsd: days.map((_, i) => total(rest.map((r) => r.costUsd[i]!))),
    unknownCost: days.map((_, i) => total(rest.map((r) => r.unknownCost[i]!))),
  };
  return { days, series: [...all.slice(0, shown), other] };
}
