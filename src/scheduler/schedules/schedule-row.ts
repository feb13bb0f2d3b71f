// The facts of one schedule that every view of it starts from (`list`, the daemon's `list`, the
// status page and MCP): what it runs, whether it is enabled or paused, when it next fires. Each
// view projects what it shows from them, so a schedule reads the same everywhere.
import { isPaused, type PauseState } from "./pause-state.js";
import type { Schedule } from "./schedule-file.js";

/** What a schedule runs, in one short line. */
export function scheduleTarget(s: Schedule): string {
  if (s.kind === "preset") return s.preset;
  if (s.kind === "chain") return `chain ${s.chain}`;
  return s.command.join(" ");
}

/** A schedule's state before its runs are read (the status page adds "failing"). */
export type BaseState = "active" | "paused" | "disabled";

export function baseState(r: { enabled: boolean; paused: boolean }): BaseState {
  return !r.enabled ? "disabled" : r.paused ? "paused" : "active";
}

export interface ScheduleFacts {
  schedule: Schedule;
  target: string;
  paused: boolean;
  state: BaseState;
  /** When it next fires, when enabled (paused or not: `list` shows it either way). */
  next?: Date;
}

/** `allPaused`: every schedule is paused (the kill switch, or `pause --all` where counted). */
export function scheduleFacts(
  s: Schedule,
  pause: PauseState,
  allPaused: boolean,
  nextFire: (s: Schedule) => Date | undefined,
): ScheduleFacts {
  const paused = allPaused || isPaused(pause, s.name);
  const facts: ScheduleFacts = {
    schedule: s,
    target: scheduleTarget(s),
    paused,
    state: baseState({ enabled: s.enabled, paused }),
  };
  const next = s.enabled ? nextFire(s) : undefined;
  if (next !== undefined) facts.next = next;
  return facts;
}
