// "Is this run alive?", the one answer for overlap, adoption and the monitor: a run launched on
// this host by its process (identity.ts), one launched on another host by its heartbeat, since
// that host's pids mean nothing in our /proc.
import { readdirSync } from "node:fs";
import { MAX_BEAT_INTERVAL_MS } from "../config/fields.js";
import { type HeartbeatRead, heartbeatsDir, readHeartbeat } from "./heartbeat-file.js";
import { thisHostId } from "./host-id.js";
import { isRunProcess } from "./identity.js";

/** A heartbeat this many intervals old is a dead launcher's: one late beat is no death. */
export const MISSED_BEATS = 3;

export type RunLiveness =
  | { where: "here"; alive: boolean }
  /** Judged by its heartbeat, refreshed at `beatAt` (epoch ms) by the launcher on `host`. */
  | { where: "elsewhere"; alive: boolean; host: string; beatAt: number };

/**
 * The verdict of a heartbeat written on another host; undefined when the run is to be judged
 * by its process here (no heartbeat: a run of an older launcher, or ended; or it is ours).
 */
export function remoteLiveness(
  read: HeartbeatRead | undefined,
  here: string,
  now: number,
): Extract<RunLiveness, { where: "elsewhere" }> | undefined {
  if (read === undefined || read.heartbeat.host === here) return undefined;
  const interval = Math.min(read.heartbeat.intervalMs, MAX_BEAT_INTERVAL_MS);
  // A clock ahead of ours makes the age negative: fresh, as it is.
  const alive = now - read.beatAt <= MISSED_BEATS * interval;
  return { where: "elsewhere", alive, host: read.heartbeat.host, beatAt: read.beatAt };
}

export interface RunLivenessDeps {
  now: () => number;
  here: () => string;
  isRunProcess: (pid: number, runId: string, startTime?: string) => boolean;
}

const defaultDeps: RunLivenessDeps = { now: Date.now, here: thisHostId, isRunProcess };

/** A launched run's liveness: `pid` and `startTime` are what the ledger recorded for it. */
export function runLiveness(
  stateDir: string,
  run: { runId: string; pid: number; startTime?: string | undefined },
  deps: Partial<RunLivenessDeps> = {},
): RunLiveness {
  const d = { ...defaultDeps, ...deps };
  const remote = remoteLiveness(readHeartbeat(stateDir, run.runId, run.pid), d.here(), d.now());
  return remote ?? { where: "here", alive: d.isRunProcess(run.pid, run.runId, run.startTime) };
}

/** A run launched on another host, alive by its heartbeat. */
export interface RunElsewhere {
  runId: string;
  schedule: string;
  host: string;
}

/**
 * Every run launched on another host and alive by its heartbeat: one look at the folder. The
 * folder, not pending.json, since each launcher rewrites that from what it knows.
 */
export function runsElsewhere(
  stateDir: string,
  deps: Partial<Pick<RunLivenessDeps, "now" | "here">> & {
    /** Runs known to be this process's own: their files are not read. */
    ours?: (runId: string) => boolean;
  } = {},
): RunElsewhere[] {
  const here = (deps.here ?? thisHostId)();
  const now = (deps.now ?? Date.now)();
  let names: string[];
  try {
    names = readdirSync(heartbeatsDir(stateDir));
  } catch {
    return []; // no folder yet: no run has beaten
  }
  return names.flatMap((runId) => {
    if (deps.ours?.(runId) === true) return [];
    const read = readHeartbeat(stateDir, runId); // temp files are no run ids: skipped
    const remote = remoteLiveness(read, here, now);
    return read !== undefined && remote?.alive === true
      ? [{ runId, schedule: read.heartbeat.schedule, host: remote.host }]
      : [];
  });
}
