// The queue file's reads and writes (state_dir/deliveries.jsonl), for every process that writes
// it: a daemon, a daemonless `fire`, the monitor's `paged` marks. Each append and each compaction
// holds the file's lock, appends open the file by path, and a compaction replays the file itself,
// so a line another process wrote is never dropped nor written to a file renamed away.
import { statSync } from "node:fs";
import { appendLinesLocked } from "../journal/append.js";
import { loadRecordFile } from "../monitor/outbox/file.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { withFileLock } from "../util/file-lock.js";
import {
  compactedDeliveryRecords,
  type DeliveryRecord,
  type DeliveryState,
  parseDeliveryRecord,
  replayDeliveries,
} from "./record.js";

export interface LoadedDeliveries {
  state: DeliveryState;
  /** Lines that did not parse (garbage or a torn tail), skipped. */
  skipped: number;
}

/** Replays the file; a torn last line is repaired under the lock, no writer being mid-line. */
export function loadDeliveryFile(path: string): LoadedDeliveries {
  return withFileLock(path, () => replayFile(path));
}

function replayFile(path: string): LoadedDeliveries {
  const loaded = loadRecordFile(path, parseDeliveryRecord);
  return { state: replayDeliveries(loaded.records), skipped: loaded.skipped };
}

/** Appends records, each fsynced before this returns: a step is on disk before it is taken. */
export function appendDeliveryRecords(path: string, records: readonly DeliveryRecord[]): void {
  const lines = records.map((r) => JSON.stringify(r));
  appendLinesLocked(path, lines, { private: true, fsync: true });
}

/**
 * Rewrites the file with only what replaying it still needs (atomic: a crash keeps one or the
 * other). It replays the file, not the caller's memory: what other writers appended is kept.
 * Returns the state the file held.
 */
export function compactDeliveryFile(path: string, at: string): DeliveryState {
  return withFileLock(path, () => {
    const { state } = replayFile(path);
    const text = compactedDeliveryRecords(state, at)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join("");
    writeFileAtomic(path, text);
    return state;
  });
}

/** The file's size in bytes (0 when missing). */
export function deliveryFileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
