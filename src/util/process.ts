// Process-level helpers: liveness checks and signalling a whole process group.
import { readdirSync } from "node:fs";

/** True when a process with this pid exists (and we may or may not signal it). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * `isProcessAlive` for many pids at once: one read of /proc, then a set lookup per pid (a
 * pass over many runs made a kill(2) call per run). A pid not listed is asked
 * directly, so a process started after the listing is never taken for dead.
 */
export function liveProcesses(): (pid: number) => boolean {
  let listed: Set<number>;
  try {
    listed = new Set();
    for (const name of readdirSync("/proc")) {
      const pid = Number(name);
      if (Number.isInteger(pid)) listed.add(pid);
    }
  } catch {
    return isProcessAlive; // no /proc: one call per pid
  }
  return (pid) => listed.has(pid) || isProcessAlive(pid);
}

/**
 * Sends `signal` to the process group led by `pid`; false when the group is gone. Never
 * -1, 0 or 1: `kill(-1)` reaches every process the user can, `kill(0)` our own group.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of the group led by `pid` is alive. */
export function isGroupAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
