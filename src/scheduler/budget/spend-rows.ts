// Spend per schedule against its budget, as `status`, the status page and MCP show it: today
// and this month in the schedule's zone, the limits, and whether the budget can hold (runs of
// unknown cost are never counted as free).
import type { ScheduleBudget } from "../config/fields.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { type PeriodSpend, type SpendLedger, scheduleSpend, usd } from "./spend.js";
import { budgetOfSchedule, budgetStanding } from "./standing.js";

export interface SpendRow {
  schedule: string;
  timezone: string;
  /** "2026-11-27" and "2026-11" in the schedule's zone. */
  day: string;
  month: string;
  today: PeriodSpend;
  thisMonth: PeriodSpend;
  budget?: ScheduleBudget;
  /** Why its slots are skipped for now, when the budget is spent. */
  exhausted?: string;
  /**
   * Whether the budget holds: "cost"; "tokens" (runs of unknown cost this month, but a token
   * limit holds); "cannot" (runs of unknown cost and dollar limits only); "none" (no budget).
   */
  holds: "cost" | "tokens" | "cannot" | "none";
}

/**
 * Rows for the schedules with a budget or with known spend this month, by name. Only schedules
 * with runs are read (`withRuns`): ten thousand idle schedules cost nothing.
 */
export function spendRows(
  schedules: ReadonlyMap<string, Schedule>,
  ledger: SpendLedger & { schedulesWithRuns(): Iterable<string> },
  now: number,
): SpendRow[] {
  const rows: SpendRow[] = [];
  for (const name of ledger.schedulesWithRuns()) {
    const schedule = schedules.get(name);
    if (schedule === undefined) continue;
    const row = spendRow(schedule, ledger, now);
    // Without a budget, only known spend is news (runs of unknown cost alone say nothing).
    const spent = row.thisMonth.costUsd > 0 || row.thisMonth.tokens > 0;
    if (row.budget !== undefined || spent) rows.push(row);
  }
  return rows.sort((a, b) => (a.schedule < b.schedule ? -1 : a.schedule > b.schedule ? 1 : 0));
}

export function spendRow(schedule: Schedule, ledger: SpendLedger, now: number): SpendRow {
  const budget = budgetOfSchedule(schedule);
  const standing = budgetStanding(schedule, ledger, now);
  const spend = standing?.spend ?? scheduleSpend(ledger, schedule.name, schedule.timezone, now);
  const row: SpendRow = {
    schedule: schedule.name,
    timezone: schedule.timezone,
    day: spend.periods.day,
    month: spend.periods.month,
    today: spend.day,
    thisMonth: spend.month,
    holds: holdsOf(budget, spend.month),
  };
  if (budget !== undefined) row.budget = budget;
  if (standing?.kind === "exhausted") row.exhausted = standing.detail;
  return row;
}

function holdsOf(budget: ScheduleBudget | undefined, month: PeriodSpend): SpendRow["holds"] {
  if (budget === undefined) return "none";
  if (month.unknownCost === 0) return "cost";
  const tokens = [budget.perRunTokens, budget.perDayTokens, budget.perMonthTokens];
  return tokens.some((t) => t !== undefined) ? "tokens" : "cannot";
}

/** "today $3.20 of $20.00" or "today $3.20"; tokens the same way when limited or known. */
function amount(label: string, spent: PeriodSpend, limitUsd?: number, limitTokens?: number) {
  const dollars = `${label} ${usd(spent.costUsd)}${limitUsd === undefined ? "" : ` of ${usd(limitUsd)}`}`;
  if (limitTokens === undefined) return dollars;
  const n = (x: number) => x.toLocaleString("en-US");
  return `${dollars}, ${n(spent.tokens)} of ${n(limitTokens)} tokens`;
}

/** One line of `status`: "nightly: today $3.20 of $20.00; 2026-11 $45.10 of $300.00; ...". */
export function spendLine(row: SpendRow): string {
  const state = row.exhausted === undefined ? "" : "SPENT ";
  return `${state}${row.schedule}: ${spendSummary(row)}`;
}

/** The line without the schedule's name: "today $3.20 of $20.00; 2026-11 $45.10 of $300.00; ...". */
export function spendSummary(row: SpendRow): string {
  const b = row.budget ?? {};
  const parts = [
    amount("today", row.today, b.perDayUsd, b.perDayTokens),
    amount(row.month, row.thisMonth, b.perMonthUsd, b.perMonthTokens),
  ];
  if (b.perRunUsd !== undefined) parts.push(`per run ${usd(b.perRunUsd)}`);
  if (b.perRunTokens !== undefined)
    parts.push(`per run ${b.perRunTokens.toLocaleString("en-US")} tokens`);
  const running = row.today.running > 0 ? ` (${row.today.running} running)` : "";
  const unknown = row.thisMonth.unknownCost;
  const note =
    row.holds === "cannot"
      ? `; ${unknown} run(s) of unknown cost this month: the dollar budget counts each at its whole per-run ceiling, whatever tokens it reported (a [prices] entry for its model counts what it spent)`
      : row.holds === "tokens"
        ? `; ${unknown} run(s) of unknown cost this month: the token limits hold`
        : unknown > 0
          ? `; ${unknown} run(s) of unknown cost`
          : "";
  return `${parts.join("; ")}${running}${note}`;
}
