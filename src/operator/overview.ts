// What the status page and the MCP server show of the schedules: cron, zone, next fire,
// state (paused, disabled, failing since…) and the outcomes of the last runs at a glance.

import { STREAK_SCAN_LIMIT, scheduleStreak } from "../monitor/detect/schedule-streak.js";
import type { RunSummary, SummaryStatus } from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import type { PauseState } from "../scheduler/schedules/pause-state.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { type BaseState, scheduleFacts } from "../scheduler/schedules/schedule-row.js";

export interface RunMark {
  runId: string;
  status: SummaryStatus;
  stopReason?: string;
  /** When it ended, or started, or its slot. */
  at: string;
  /** How long it took, once ended. */
  durationMs?: number;
  /** What it spent, when it said. */
  costUsd?: number;
}

export type ScheduleState = BaseState | "failing";

export interface ScheduleRow {
  name: string;
  cron: string;
  timezone: string;
  kind: Schedule["kind"];
  target: string;
  file: string;
  enabled: boolean;
  paused: boolean;
  /** ISO instant, when enabled and not paused. */
  nextFire?: string;
  state: ScheduleState;
  /** The oldest of the failed runs in a row ending with the latest one. */
  failingSince?: string;
  consecutiveFailures: number;
  /** Runs of it in progress. */
  running: string[];
  /** The last runs, newest first (skipped slots included). */
  recent: RunMark[];
}

export interface OverviewInput {
  /** The daemon's map in force (its sorted list is kept while it is), or any list. */
  schedules: ReadonlyMap<string, Schedule> | Iterable<Schedule>;
  ledger: Pick<RunLedger, "listRuns">;
  pause: PauseState;
  /** AUTOLOOP_CRON_PAUSED in the daemon's environment. */
  killSwitch: boolean;
  nextFire: (s: Schedule) => Date | undefined;
  /** How many recent runs per schedule (default 10). */
  recent?: number;
}

const RUNNING: ReadonlySet<SummaryStatus> = new Set(["pending", "running"]);

export function runMark(r: RunSummary): RunMark {
  const mark: RunMark = {
    runId: r.runId,
    status: r.status,
    at: r.finishedAt ?? r.startedAt ?? r.slot,
  };
  if (r.durationMs !== undefined) mark.durationMs = r.durationMs;
  if (r.costUsd !== undefined) mark.costUsd = r.costUsd;
  if (r.stopReason !== undefined) mark.stopReason = r.stopReason;
  else if (r.skipCause !== undefined) mark.stopReason = r.skipCause;
  return mark;
}

export function scheduleRow(s: Schedule, input: OverviewInput): ScheduleRow {
  const recent = input.recent ?? 10;
  const scanned = input.ledger.listRuns({ schedule: s.name, limit: STREAK_SCAN_LIMIT });
  const runs = scanned.slice(0, recent);
  // The failing streak as the monitor counts it (its alerts say the same "failing since").
  const streak = scheduleStreak(s.name, scanned);
  const consecutiveFailures = streak.failures.length;
  const failingSince = streak.failures.at(-1)?.at;
  // The kill switch pauses every row; `pause --all` does not mark the rows here, unlike `list`
  // (the page shows it as a banner).
  const facts = scheduleFacts(s, input.pause, input.killSwitch, input.nextFire);
  const state: ScheduleState =
    facts.state === "active" && consecutiveFailures > 0 ? "failing" : facts.state;
  const row: ScheduleRow = {
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    kind: s.kind,
    target: facts.target,
    file: s.file,
    enabled: s.enabled,
    paused: facts.paused,
    state,
    consecutiveFailures,
    running: runs.filter((r) => RUNNING.has(r.status)).map((r) => r.runId),
    recent: runs.map(runMark),
  };
  if (facts.next !== undefined && !facts.paused) row.nextFire = facts.next.toISOString();
  if (failingSince !== undefined) row.failingSince = failingSince;
  return row;
}

export interface OverviewPage {
  rows: ScheduleRow[];
  /** Schedules matching the filter, before the limit. */
  matched: number;
  total: number;
}

const ROWS_SCANNED = 1000;

const STATE_ORDER: Record<ScheduleState, number> = {
  failing: 0,
  active: 1,
  paused: 2,
  disabled: 3,
};

/**
 * The schedules whose name contains `filter`, failing ones first, then by name, at most
 * `limit` of them: a host with 100,000 schedules shows a page, not all of them.
 */
export function scheduleOverview(
  input: OverviewInput,
  options: { filter?: string; limit?: number } = {},
): OverviewPage {
  const filter = options.filter?.trim().toLowerCase() ?? "";
  const limit = options.limit ?? 200;
  const all = sortedByName(input.schedules);
  const matching = filter === "" ? all : all.filter((s) => s.name.toLowerCase().includes(filter));
  // Failing first among the first ROWS_SCANNED by name: a big host's page does not replay
  // every schedule's runs (the filter narrows it; firing alerts are listed apart anyway).
  const rows = matching.slice(0, Math.max(limit, ROWS_SCANNED)).map((s) => scheduleRow(s, input));
  rows.sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || byName(a, b));
  return { rows: rows.slice(0, limit), matched: matching.length, total: all.length };
}

const byName = (a: { name: string }, b: { name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

const isMap = (x: OverviewInput["schedules"]): x is ReadonlyMap<string, Schedule> =>
  typeof (x as Partial<ReadonlyMap<string, Schedule>>).get === "function";

/** The daemon's schedules in force, sorted once per load (each load puts a new map in force). */
const sortedSets = new WeakMap<object, Schedule[]>();

function sortedByName(schedules: OverviewInput["schedules"]): Schedule[] {
  const known = sortedSets.get(schedules);
  if (known !== undefined) return known;
  const map = isMap(schedules) ? schedules : undefined;
  const list = [...(map ? map.values() : (schedules as Iterable<Schedule>))].sort(byName);
  if (map) sortedSets.set(map, list);
  return list;
}
