// "Is this run alive?", the one answer for overlap, adoption and the monitor: a run launched on
// this host by its process (identity.ts), one launched on another host by its heartbeat, since
// that host's pids mean nothing in our /proc.
import { MAX_BEAT_INTERVAL_MS } from "../config/fields.js";
import { type HeartbeatRead, readHeartbeat } from "./heartbeat-file.js";
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
