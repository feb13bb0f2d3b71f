// One schedule as `autoloop-cron list` shows it, built by the daemon for what it has in force
// and by the CLI for the files as they are.
import type { PauseState } from "./pause-state.js";
import type { Schedule } from "./schedule-file.js";
import { type ScheduleFacts, scheduleFacts } from "./schedule-row.js";

/** One schedule as `autoloop-cron list` shows it. */
export interface ListRow {
  name: string;
  cron: string;
  timezone: string;
  kind: Schedule["kind"];
  target: string;
  /** ISO instant, when enabled. */
  next: string | null;
  overlap: Schedule["overlap"];
  enabled: boolean;
  paused: boolean;
  file: string;
}

function listRow({ schedule: s, target, next, paused }: ScheduleFacts): ListRow {
  return {
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    kind: s.kind,
    target,
    next: next?.toISOString() ?? null,
    overlap: s.overlap,
    enabled: s.enabled,
    paused,
    file: s.file,
  };
}

export function listRows(
  schedules: Iterable<Schedule>,
  pause: PauseState,
  allPaused: boolean,
  nextFire: (s: Schedule) => Date | undefined,
): ListRow[] {
  return [...schedules].map((s) => listRow(scheduleFacts(s, pause, allPaused, nextFire)));
}
