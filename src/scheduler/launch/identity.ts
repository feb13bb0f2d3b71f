// Tells a launched run's process apart from a later process that reused its pid, via /proc (Linux).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readProcStat } from "../../util/proc-stat.js";
import { isProcessAlive } from "../../util/process.js";

/** Field 22 (starttime, clock ticks since boot) of the process, or undefined without /proc. */
export function readProcessStartTime(pid: number): string | undefined {
  return readProcStat(pid)?.startTime;
}

/**
 * True when `pid` is alive and, if `startTime` is known and /proc is readable, is the same
 * process that was launched. Zombies count as gone: they have exited, only unreaped.
 */
export function isSameProcessAlive(pid: number, startTime?: string): boolean {
  if (!isProcessAlive(pid)) return false;
  const stat = readProcStat(pid);
  if (stat === undefined) return true; // No /proc (not Linux): liveness is all we can know.
  if (stat.state === "Z" || stat.state === "X") return false;
  return startTime === undefined || stat.startTime === startTime;
}

/** The run's marker in its environment: the launcher sets it, so the harness carries it. */
function carriesRunId(pid: number, runId: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    return `\0${environ}`.includes(`\0AUTOLOOP_CRON_RUN_ID=${runId}\0`);
  } catch {
    return false; // Gone, or another user's: either way not provably ours.
  }
}

/**
 * True only when `pid` is provably the run's harness, the check before any signal to a
 * process group named by a state file (pending.json may be stale, reused or forged): a pid
 * above 1, alive, leading its own process group (the launcher starts every run detached),
 * with the recorded start time when there is one, and carrying `AUTOLOOP_CRON_RUN_ID=<run>`.
 * Without /proc (not Linux) only liveness and pid > 1 can be checked.
 */
export function isRunProcess(pid: number, runId: string, startTime?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || !isProcessAlive(pid)) return false;
  if (!existsSync("/proc/self/stat")) return true;
  const stat = readProcStat(pid);
  if (stat === undefined || stat.state === "Z" || stat.state === "X") return false;
  if (startTime !== undefined && stat.startTime !== startTime) return false;
  return stat.pgrp === pid && carriesRunId(pid, runId);
}

/**
 * Finds the harness of a run whose pid was never recorded (a crash between spawn and the
 * ledger write), by the `AUTOLOOP_CRON_RUN_ID` the launcher puts in its environment.
 * Prefers the process-group leader, which is the harness; its children inherit the variable.
 */
export function findProcessByRunId(
  runId: string,
): { pid: number; startTime: string | undefined } | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const needle = `\0AUTOLOOP_CRON_RUN_ID=${runId}\0`;
  const matches: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, "utf8")}`.includes(needle))
        matches.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  const stats = matches.map((pid) => ({ pid, stat: readProcStat(pid) }));
  const alive = stats.filter((s) => s.stat !== undefined && s.stat.state !== "Z");
  const leader = alive.find((s) => s.stat?.pgrp === s.pid) ?? alive[0];
  return leader === undefined ? undefined : { pid: leader.pid, startTime: leader.stat?.startTime };
}
