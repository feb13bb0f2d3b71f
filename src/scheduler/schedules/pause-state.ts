// Pause state: `<state>/paused.json` (written by `autoloop-cron pause|resume`, read by the
// daemon at every fire) and the global kill switch AUTOLOOP_CRON_PAUSED=1.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { withFileLock } from "../../util/file-lock.js";

export interface PauseState {
  /** Every schedule paused (`autoloop-cron pause` with no name). */
  all: boolean;
  schedules: string[];
  /** Why a schedule was paused by the scheduler itself (`pause_after_failures`). */
  reasons?: Record<string, PauseReason>;
  /** When each schedule was last resumed: failures before that no longer count. */
  resumed?: Record<string, string>;
}

/** A pause the scheduler made: after this many failed runs in a row, these runs. */
export interface PauseReason {
  by: "pause_after_failures";
  at: string;
  failures: number;
  runs: string[];
}

export function pauseFile(stateDir: string): string {
  return join(stateDir, "paused.json");
}

export function readPauseState(stateDir: string): PauseState {
  try {
    const raw = JSON.parse(readFileSync(pauseFile(stateDir), "utf8")) as Partial<PauseState>;
    const schedules = Array.isArray(raw.schedules)
      ? raw.schedules.filter((s) => typeof s === "string")
      : [];
    const reasons = Object.fromEntries(
      Object.entries(
        typeof raw.reasons === "object" && raw.reasons !== null ? raw.reasons : {},
      ).filter(
        ([name, r]) =>
          schedules.includes(name) &&
          r?.by === "pause_after_failures" &&
          typeof r.at === "string" &&
          Array.isArray(r.runs),
      ),
    );
    const resumed = Object.fromEntries(
      Object.entries(
        typeof raw.resumed === "object" && raw.resumed !== null ? raw.resumed : {},
      ).filter(([, at]) => typeof at === "string"),
    );
    return {
      all: raw.all === true,
      schedules,
      ...(Object.keys(reasons).length > 0 && { reasons }),
      ...(Object.keys(resumed).length > 0 && { resumed }),
    };
  } catch {
    return { all: false, schedules: [] };
  }
}

/** True when AUTOLOOP_CRON_PAUSED is set to 1/true/yes. */
export function killSwitchOn(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true|yes|on)$/i.test(env.AUTOLOOP_CRON_PAUSED ?? "");
}

/**
 * Pauses or resumes one schedule, or all of them when `schedule` is undefined; `reason` says
 * why the scheduler paused it itself (a resume forgets it).
 */
export function setPaused(
  stateDir: string,
  schedule: string | undefined,
  paused: boolean,
  reason?: PauseReason,
): PauseState {
  const file = pauseFile(stateDir);
  return withFileLock(file, () => {
    const state = readPauseState(stateDir);
    if (schedule === undefined) {
      state.all = paused;
      if (!paused) state.schedules = [];
    } else {
      const set = new Set(state.schedules);
      if (paused) set.add(schedule);
      else set.delete(schedule);
      state.schedules = [...set].sort();
      const reasons = { ...state.reasons };
      if (paused && reason !== undefined) reasons[schedule] = reason;
      else if (!paused) delete reasons[schedule];
      if (Object.keys(reasons).length > 0) state.reasons = reasons;
      else delete state.reasons;
      if (!paused) state.resumed = { ...state.resumed, [schedule]: new Date().toISOString() };
    }
    writeFileAtomic(
      file,
      `${JSON.stringify({ ...state, updated_at: new Date().toISOString() }, null, 2)}\n`,
    );
    return state;
  });
}

export function isPaused(state: PauseState, schedule: string): boolean {
  return state.schedules.includes(schedule);
}
