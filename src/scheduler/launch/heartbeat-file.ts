// `<state_dir>/heartbeats/<run-id>`: where a run runs, written by its launcher, whose mtime the
// launcher refreshes while the run lives (docs/formats.md, "Run heartbeats").
import { closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openRegularFile } from "../../util/untrusted-file.js";
import { isScheduledRunId } from "../ledger/scheduled-run-id.js";

export interface Heartbeat {
  runId: string;
  /** The run's schedule: a host's daemon counts other hosts' runs of it (overlap). */
  schedule: string;
  /** The launcher's host id (host-id.ts): the host whose /proc knows `pid`. */
  host: string;
  pid: number;
  startTime?: string;
  /** How often the launcher refreshes the file's mtime. */
  intervalMs: number;
}

/** A heartbeat as read: its content and the mtime of its last refresh (epoch ms). */
export interface HeartbeatRead {
  heartbeat: Heartbeat;
  beatAt: number;
}

/** A heartbeat file is a few hundred bytes: anything larger is not one of ours. */
const MAX_BYTES = 4096;

export function heartbeatsDir(stateDir: string): string {
  return join(stateDir, "heartbeats");
}

/** The run's heartbeat file; undefined for an id that is not a scheduled run's (no path tricks). */
export function heartbeatPath(stateDir: string, runId: string): string | undefined {
  return isScheduledRunId(runId) ? join(heartbeatsDir(stateDir), runId) : undefined;
}

export function encodeHeartbeat(h: Heartbeat): string {
  const { runId, schedule, host, pid, startTime, intervalMs } = h;
  const start = startTime !== undefined && { startTime };
  return `${JSON.stringify({ v: 1, runId, schedule, host, pid, ...start, intervalMs })}\n`;
}

/** The heartbeat in `text`, or undefined when it is not one (a torn or foreign file). */
export function decodeHeartbeat(text: string): Heartbeat | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { v, runId, schedule, host, pid, startTime, intervalMs } = value as Record<string, unknown>;
  if (v !== 1 || typeof runId !== "string" || typeof host !== "string") return undefined;
  if (typeof schedule !== "string") return undefined;
  if (!Number.isInteger(pid) || !Number.isInteger(intervalMs) || (intervalMs as number) <= 0)
    return undefined;
  if (startTime !== undefined && typeof startTime !== "string") return undefined;
  return {
    runId,
    schedule,
    host,
    pid: pid as number,
    ...(startTime !== undefined && { startTime }),
    intervalMs: intervalMs as number,
  };
}

/**
 * The run's heartbeat, or undefined when it has none (never had one, ended, or unreadable) or
 * one for another process than `pid` (the ledger's): the ledger names the run's process.
 */
export function readHeartbeat(
  stateDir: string,
  runId: string,
  pid?: number,
): HeartbeatRead | undefined {
  const path = heartbeatPath(stateDir, runId);
  if (path === undefined) return undefined;
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(path);
  } catch {
    return undefined; // a link or a FIFO: not ours
  }
  if (opened === undefined) return undefined;
  try {
    if (opened.stat.size > MAX_BYTES) return undefined;
    const heartbeat = decodeHeartbeat(readFileSync(opened.fd, "utf8"));
    if (heartbeat?.runId !== runId || (pid !== undefined && heartbeat.pid !== pid))
      return undefined;
    return { heartbeat, beatAt: opened.stat.mtimeMs };
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}
