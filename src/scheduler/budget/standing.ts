// Where a schedule stands against its budget before a slot launches: exhausted (the slot is
// skipped, `budget_exhausted`), or the ceiling its run gets: the least of the per-run limit
// and what is left today and this month. A run whose spend is unknown counts as its ceiling.
import type { ScheduleBudget } from "../config/fields.js";
import type { RunCeiling } from "../launch/spec.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { type ScheduleSpend, type SpendLedger, scheduleSpend, usd } from "./spend.js";

export type BudgetStanding =
  | { kind: "open"; ceiling: RunCeiling; spend: ScheduleSpend }
  | {
      kind: "exhausted";
      /** Which limit: "day" or "month", in US dollars or tokens. */
      period: "day" | "month";
      /** "2026-11-27" or "2026-11": the alert is about this period. */
      periodKey: string;
      /** One line for the ledger, the log and the page. */
      detail: string;
      /** When the period turns (epoch ms): the slot after that runs again. */
      until: number;
      spend: ScheduleSpend;
    };

/** The budget a schedule holds, if any (only preset schedules have one). */
export function budgetOfSchedule(schedule: Schedule): ScheduleBudget | undefined {
  return schedule.kind === "preset" ? schedule.budget : undefined;
}

export interface StandingOptions {
  /** Count what running runs may still spend (admission, the default); false: only what was spent (pages). */
  reserved?: boolean;
  /**
   * The ceilings of this schedule's launches decided but not yet claimed in the ledger (the
   * daemon decides a pass of slots before it claims them): they hold their share already.
   */
  unclaimed?: readonly RunCeiling[];
}

/** The schedule's standing now; undefined when it has no budget. */
export function budgetStanding(
  schedule: Schedule,
  ledger: SpendLedger,
  now: number,
  { reserved = true, unclaimed = [] }: StandingOptions = {},
): BudgetStanding | undefined {
  const budget = budgetOfSchedule(schedule);
  if (budget === undefined) return undefined;
  const spend = scheduleSpend(ledger, schedule.name, schedule.timezone, now);
  const { day, month, periods, unknown } = spend;
  const left = (limit: number | undefined, used: number) =>
    limit === undefined ? undefined : limit - used;
  const r = reserved ? 1 : 0;
  const decided = {
    usd: unclaimed.reduce((sum, c) => sum + (c.usd ?? 0), 0),
    tokens: unclaimed.reduce((sum, c) => sum + (c.tokens ?? 0), 0),
  };
  const usdLeft = {
    day: left(
      budget.perDayUsd,
      day.costUsd + unknown.day.usd + r * (day.reservedUsd + decided.usd),
    ),
    month: left(
      budget.perMonthUsd,
      month.costUsd + unknown.month.usd + r * (month.reservedUsd + decided.usd),
    ),
  };
  const tokensLeft = {
    day: left(
      budget.perDayTokens,
      day.tokens + unknown.day.tokens + r * (day.reservedTokens + decided.tokens),
    ),
    month: left(
      budget.perMonthTokens,
      month.tokens + unknown.month.tokens + r * (month.reservedTokens + decided.tokens),
    ),
  };
  for (const period of ["month", "day"] as const) {
    const spent = period === "day" ? day : month;
    const key = period === "day" ? periods.day : periods.month;
    const until = period === "day" ? periods.nextDay : periods.nextMonth;
    const dollars = usdLeft[period];
    const tokens = tokensLeft[period];
    const held = period === "day" ? unknown.day : unknown.month;
    const holding = spent.running + unclaimed.length;
    const running = holding > 0 ? ` (${holding} running run(s) hold the rest)` : "";
    const per = period === "day" ? "per_day" : "per_month";
    if (dollars !== undefined && dollars <= 0)
      return {
        kind: "exhausted",
        period,
        periodKey: key,
        until,
        spend,
        detail: `budget exhausted: ${schedule.name} spent ${usd(spent.costUsd)}${unknownNote(held.usd, spent.unknownCost, usd)} of its ${per} ${usd(dollarsLimit(budget, period))} for ${key} (${schedule.timezone})${running}; the next slot runs on ${new Date(until).toISOString()} or once the budget is raised`,
      };
    if (tokens !== undefined && tokens <= 0)
      return {
        kind: "exhausted",
        period,
        periodKey: key,
        until,
        spend,
        detail: `budget exhausted: ${schedule.name} used ${spent.tokens.toLocaleString("en-US")}${unknownNote(held.tokens, undefined, (n) => `${n.toLocaleString("en-US")} tokens`)} of its tokens_${per} ${tokensLimit(budget, period)?.toLocaleString("en-US")} tokens for ${key} (${schedule.timezone})${running}; the next slot runs on ${new Date(until).toISOString()} or once the budget is raised`,
      };
  }
  return {
    kind: "open",
    spend,
    ceiling: {
      ...least(budget.perRunUsd, usdLeft.day, usdLeft.month, (n) => ({
        usd: Math.max(1e-6, Math.floor(n * 1e6) / 1e6),
      })),
      ...least(budget.perRunTokens, tokensLeft.day, tokensLeft.month, (n) => ({
        tokens: Math.max(1, Math.floor(n)),
      })),
    },
  };
}

/** " + $1.00 for 1 run(s) of unknown spend (their ceilings)", or the budget as a whole. */
function unknownNote(held: number, runs: number | undefined, as: (n: number) => string): string {
  if (held <= 0) return "";
  const who = runs === undefined ? "run(s) of unknown spend" : `${runs} run(s) of unknown spend`;
  return Number.isFinite(held)
    ? ` + ${as(held)} for ${who} (counted at their ceilings)`
    : ` + ${who} launched without a ceiling (counted as the whole budget)`;
}

function dollarsLimit(b: ScheduleBudget, period: "day" | "month"): number {
  return (period === "day" ? b.perDayUsd : b.perMonthUsd) ?? 0;
}

function tokensLimit(b: ScheduleBudget, period: "day" | "month"): number | undefined {
  return period === "day" ? b.perDayTokens : b.perMonthTokens;
}

function least<T>(
  a: number | undefined,
  b: number | undefined,
  c: number | undefined,
  as: (n: number) => T,
): T | undefined {
  // Dollars are floored to the micro-dollar, so a ceiling never exceeds what is left.
  const known = [a, b, c].filter((n) => n !== undefined);
  return known.length === 0 ? undefined : as(Math.min(...known));
}
