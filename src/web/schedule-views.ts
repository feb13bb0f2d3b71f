// What the status page reads for one schedule: its page's data and its badge's state, from
// the daemon's schedules in force, pause state and ledger (the overview's row, one schedule).
import { type OverviewInput, type ScheduleRow, scheduleRow } from "../operator/overview.js";
import { spendRow } from "../scheduler/budget/spend-rows.js";
import { spendTrend } from "../scheduler/budget/spend-trend.js";
import { killSwitchOn, readPauseState } from "../scheduler/schedules/pause-state.js";
import { type BadgeState, badgeState } from "./charts/badge.js";
import type { ActionContext } from "./page-actions.js";
import { type SchedulePageData, TREND_RUNS } from "./schedule-page.js";

function rowOf(name: string, o: ActionContext): ScheduleRow | undefined {
  const { daemon, config } = o;
  const schedule = daemon.schedules.get(name);
  if (schedule === undefined) return undefined;
  const input: OverviewInput = {
    schedules: daemon.schedules,
    ledger: daemon.ledger,
    pause: readPauseState(config.stateDir),
    killSwitch: killSwitchOn(o.env ?? process.env),
    nextFire: (s) => daemon.nextFire(s.name),
    recent: TREND_RUNS,
  };
  return scheduleRow(schedule, input);
}

/** The schedule's page data; undefined when no schedule of that name is in force. */
export function schedulePageData(
  name: string,
  o: ActionContext,
  now: number,
  origin: string,
): SchedulePageData | undefined {
  const row = rowOf(name, o);
  const schedule = o.daemon.schedules.get(name);
  if (row === undefined || schedule === undefined) return undefined;
  const ledger = {
    runIdsNewestFirst: (s: string) => o.daemon.ledger.runIdsNewestFirst(s),
    summary: (id: string) => o.daemon.ledger.summary(id),
    // Only this schedule's series: the chart beside its budget.
    schedulesWithRuns: () => [name],
  };
  return {
    row,
    spend: spendRow(schedule, o.daemon.ledger, now),
    trend: spendTrend(new Map([[name, schedule]]), ledger, now),
    badgeUrl: `${origin}/schedules/${encodeURIComponent(name)}/badge.svg`,
  };
}

/** The badge's word for the schedule, "not found" when none of that name is in force. */
export function scheduleBadgeState(name: string, o: ActionContext): BadgeState {
  const row = rowOf(name, o);
  return row === undefined ? "not found" : badgeState(row);
}
