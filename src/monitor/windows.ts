// Recurring maintenance windows (`[[silence]]` in autoloop-cron.toml): from each match of a
// window's cron, for its duration, the alerts it matches are silences like an operator's. An
// alert that fires inside one is recorded and goes out when the window ends, only if it still
// holds (the silence rules of alert-rules.ts); one that clears inside it is never sent.
import type { MaintenanceWindow } from "../scheduler/config/config.js";
import { nextFireTime, slotsBetween } from "../scheduler/timing/planner.js";
import type { OperatorState, Silence } from "./silences.js";

export interface WindowState {
  name: string;
  /** Set while the window is open: when it began and when it ends. */
  openSince?: string;
  until?: string;
  /** When it next opens (while closed). */
  next?: string;
  schedules: string[];
  kinds: string[];
  comment?: string;
}

const spec = (w: MaintenanceWindow) => ({
  name: w.name,
  cron: w.cron,
  timezone: w.timezone,
  jitterMs: 0,
});

/** The window's state at `now`: open (since, until) or closed (next opening). */
export function windowState(w: MaintenanceWindow, now: Date): WindowState {
  const base = {
    name: w.name,
    schedules: w.schedules,
    kinds: w.kinds,
    ...(w.comment !== undefined && { comment: w.comment }),
  };
  // The latest opening at most a duration ago: windows that overlap run on from the latest.
  const opened = slotsBetween(spec(w), new Date(now.getTime() - w.durationMs), now, 10_000).at(-1);
  if (opened !== undefined)
    return {
      ...base,
      openSince: opened.toISOString(),
      until: new Date(opened.getTime() + w.durationMs).toISOString(),
    };
  const next = nextFireTime(spec(w), now);
  return { ...base, ...(next !== undefined && { next: next.toISOString() }) };
}

/** An open window's silences: one per schedule and kind it names ("*": every alert). */
function silencesOf(w: WindowState): Silence[] {
  const schedules = w.schedules.length === 0 ? [undefined] : w.schedules;
  const kinds = w.kinds.length === 0 ? [undefined] : w.kinds;
  return schedules.flatMap((s) =>
    kinds.map((k) => ({
      id: `window:${w.name}`,
      matcher:
        [s && `schedule=${s}`, k && `kind=${k}`].filter((t) => t !== undefined).join(",") || "*",
      until: w.until!,
      createdAt: w.openSince!,
      comment: w.comment ?? `maintenance window ${w.name}`,
    })),
  );
}

/** The operator's decisions with the open windows' silences added. */
export function withWindows(
  state: OperatorState,
  windows: readonly MaintenanceWindow[],
  now: Date,
): OperatorState {
  if (windows.length === 0) return state;
  const open = windows.map((w) => windowState(w, now)).filter((w) => w.until !== undefined);
  if (open.length === 0) return state;
  return { ...state, silences: [...state.silences, ...open.flatMap(silencesOf)] };
}
