// One schedule as `autoloop-cron list` shows it, built by the daemon for what it has in force
// and by the CLI for the files as they are.
import { isPaused, type PauseState } from "./pause-state.js";
import type { Schedule } from "./schedule-file.js";

/** What a schedule runs, in one short line. */
export function scheduleTarget(s: Schedule): string {
  if (s.kind === "preset") return s.preset;
  if (s.kind === "chain") return `chain ${s.chain}`;
  return s.command.join(" ");
}

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

export function listRow(
  s: Schedule,
  pause: PauseState,
  allPaused: boolean,
  nextFire: (s: Schedule) => Date | undefined,
): ListRow {
  return {
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    kind: s.kind,
    target: scheduleTarget(s),
    next: s.enabled ? (nextFire(s)?.toISOString() ?? null) : null,
    overlap: s.overlap,
    enabled: s.enabled,
    paused: allPaused || isPaused(pause, s.name),
    file: s.file,
  };
}

export function listRows(
  schedules: Iterable<Schedule>,
  pause: PauseState,
  allPaused: boolean,
  nextFire: (s: Schedule) => Date | undefined,
): ListRow[] {
  return [...schedules].map((s) => listRow(s, pause, allPaused, nextFire));
}
