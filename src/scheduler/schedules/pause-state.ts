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
}

export function pauseFile(stateDir: string): string {
  return join(stateDir, "paused.json");
}

export function readPauseState(stateDir: string): PauseState {
  try {
    const raw = JSON.parse(readFileSync(pauseFile(stateDir), "utf8")) as Partial<PauseState>;
    return {
      all: raw.all === true,
      schedules: Array.isArray(raw.schedules)
        ? raw.schedules.filter((s) => typeof s === "string")
        : [],
    };
  } catch {
    return { all: false, schedules: [] };
  }
}

/** True when AUTOLOOP_CRON_PAUSED is set to 1/true/yes. */
export function killSwitchOn(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true|yes|on)$/i.test(env.AUTOLOOP_CRON_PAUSED ?? "");
}

/** Pauses or resumes one schedule, or all of them when `schedule` is undefined. */
export function setPaused(
  stateDir: string,
  schedule: string | undefined,
  paused: boolean,
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
