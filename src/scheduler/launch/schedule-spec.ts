// Builds the launcher's spec for one run of a schedule.
import { join } from "node:path";
import type { CronConfig } from "../config/config.js";
import { runFetchOf } from "../config/fetch.js";
import type { Schedule } from "../schedules/schedule-file.js";
import type { LaunchSpec } from "./spec.js";

/** Time between SIGTERM and SIGKILL when the scheduler stops a run. */
export const RUN_KILL_GRACE_MS = 10_000;

export function launchSpecFor(
  config: CronConfig,
  schedule: Schedule,
  runId: string,
  slot: Date,
): LaunchSpec {
  const common = {
    runId,
    schedule: schedule.name,
    slot,
    cwd: schedule.projectDir,
    env: schedule.env,
    timeoutMs: schedule.timeoutMs,
    killGraceMs: RUN_KILL_GRACE_MS,
    outputPath: join(config.stateDir, "output", `${runId}.log`),
  };
  if (schedule.kind === "command") return { ...common, kind: "command", command: schedule.command };
  if (schedule.kind === "chain")
    return {
      ...common,
      kind: "chain",
      harness: config.harness,
      chain: schedule.chain,
      objective: schedule.objective,
      envFiles: schedule.envFiles,
      sets: schedule.sets,
      presetsDir: config.presetsDir,
    };
  const fetch = runFetchOf(schedule);
  const pull = schedule.deliver?.pullRequest;
  // Only to the remote the token is for: `fetch_remote` may name another host.
  const fetchToken =
    pull !== undefined && pull.remote === fetch?.remote
      ? { forge: pull.forge, token: pull.token }
      : undefined;
  return {
    ...common,
    kind: "preset",
    harness: config.harness,
    // The resolved folder: the harness runs in project_dir and would not find presets_dir.
    preset: schedule.presetDir ?? schedule.preset,
    objective: schedule.objective,
    maxIterations: schedule.maxIterations,
    envFiles: schedule.envFiles,
    isolation: schedule.isolation,
    sets: schedule.sets,
    ...(fetch !== undefined && { fetch, gitDir: join(config.stateDir, "git") }),
    ...(fetchToken !== undefined && { fetchToken }),
  };
}
