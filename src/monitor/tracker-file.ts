// The run tracker's snapshot on disk (state_dir/monitor/tracker.json): saved by the monitor,
// restored at its start (so a restart with nothing new sends nothing), and read by the
// operator's tools to find runs the monitor watches. One reader, one shape check.
import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Logger } from "pino";
import { writeFileAtomic, writeFileAtomicAsync } from "../util/atomic-write.js";
import type { TrackerSnapshot } from "./detect/run-tracker.js";
import type { MonitorPaths } from "./paths.js";

/** What reading the snapshot found: it, none yet, or a file that is not one. */
export type TrackerRead =
  | { kind: "read"; snapshot: TrackerSnapshot }
  | { kind: "missing" }
  | { kind: "malformed" }
  | { kind: "unreadable"; err: unknown };

/** The snapshot at `file`, shape-checked (runs, offsets, marks). */
export function readTrackerSnapshot(file: string): TrackerRead {
  let parsed: Partial<TrackerSnapshot>;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<TrackerSnapshot>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "unreadable", err };
  }
  if (Array.isArray(parsed?.runs) && typeof parsed.offsets === "object" && parsed.marks)
    return { kind: "read", snapshot: parsed as TrackerSnapshot };
  return { kind: "malformed" };
}

/**
 * The saved tracker snapshot. Without one, saved positions are useless (the runs they skip
 * past would be unknown), so they are dropped and every journal is read again from 0.
 */
export function loadTracker(paths: MonitorPaths, logger: Logger): TrackerSnapshot | undefined {
  const read = readTrackerSnapshot(paths.tracker);
  if (read.kind === "malformed")
    logger.warn({ file: paths.tracker }, "monitor: tracker snapshot malformed; ignoring it");
  if (read.kind === "unreadable")
    logger.warn({ file: paths.tracker, err: read.err }, "monitor: tracker snapshot unreadable");
  if (read.kind === "read") return read.snapshot;
  if (existsSync(paths.positions)) {
    logger.warn("monitor: no run tracker snapshot; re-reading every journal from the start");
    rmSync(paths.positions, { force: true });
  }
  return undefined;
}

export function saveTracker(paths: MonitorPaths, snapshot: TrackerSnapshot | string): void {
  writeFileAtomic(paths.tracker, trackerFileText(snapshot));
}

/** The same save off the event loop, for the periodic flush. */
export function saveTrackerInBackground(
  paths: MonitorPaths,
  /** `RunTracker.snapshotParts()`: written one after another, never joined. */
  parts: readonly string[],
): Promise<void> {
  return writeFileAtomicAsync(paths.tracker, [...parts, "\n"]);
}

function trackerFileText(snapshot: TrackerSnapshot | string): string {
  return `${typeof snapshot === "string" ? snapshot : JSON.stringify(snapshot)}\n`;
}
