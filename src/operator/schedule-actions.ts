// Pausing, resuming and firing a schedule: one code path for the CLI, the status page and
// the MCP server.
import { type Control, controlFiles, runningDaemon } from "../scheduler/daemon/control.js";
import { isPaused, killSwitchOn, setPaused } from "../scheduler/schedules/pause-state.js";
import { UserError } from "../util/errors.js";

/**
 * Pauses or resumes one schedule (or all, `name` undefined); the daemon reads it at its next
 * tick. `known` says whether a name is a loaded schedule. Returns the operator's line.
 */
export function pauseSchedule(
  stateDir: string,
  name: string | undefined,
  paused: boolean,
  known: (name: string) => boolean,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const verb = paused ? "pause" : "resume";
  if (name !== undefined && !known(name))
    throw new UserError(
      `cannot ${verb}: unknown schedule ${JSON.stringify(name)}; \`autoloop-cron list\` shows the loaded ones`,
    );
  const state = setPaused(stateDir, name, paused);
  let line =
    name === undefined
      ? paused
        ? "all schedules paused"
        : "all schedules resumed"
      : `${name} ${isPaused(state, name) ? "paused" : "resumed"}${state.all ? " (note: all schedules are paused)" : ""}`;
  if (!paused && killSwitchOn(env)) line += " (note: AUTOLOOP_CRON_PAUSED is set)";
  return line;
}

/** Asks a daemon to launch a run of `name` now (trigger manual), under the schedule's policies. */
export async function fireSchedule(
  control: Control,
  name: string,
  pullRequest?: number,
): Promise<{ runId?: string; message: string }> {
  const response = await control({
    action: "fire",
    schedule: name,
    ...(pullRequest !== undefined && { pullRequest }),
  });
  if (!response.ok) throw new UserError(response.error, 1);
  return response.runId === undefined
    ? { message: response.message }
    : { runId: response.runId, message: response.message };
}

/**
 * Asks the daemon running on `stateDir` to fire `name`. Without a daemon there is nobody to
 * own the run: an error says so.
 */
export async function fireThroughDaemon(
  stateDir: string,
  name: string,
  pullRequest?: number,
): Promise<{ runId?: string; message: string }> {
  if (runningDaemon(stateDir) === undefined)
    throw new UserError(
      `no autoloop-cron daemon is running on ${stateDir}: start it (autoloop-cron start), or run \`autoloop-cron fire ${name}\` in a terminal to run it in the foreground`,
    );
  return fireSchedule(controlFiles(stateDir), name, pullRequest);
}
