// Reading outbox.jsonl (and any JSONL file of records) at startup: replay every whole line, and
// repair a torn last line (from a crash mid-write) so the next append starts on a line of its own.
import { appendFileSync, truncateSync } from "node:fs";
import { LineCursor, parseLines } from "../../journal/reader.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import {
  compactedRecords,
  type DeadLetter,
  encodeOutboxRecord,
  type OutboxState,
  parseOutboxRecord,
  replayOutbox,
} from "./record.js";

export interface LoadedRecords<R> {
  records: R[];
  /** Lines that did not parse (garbage or the torn tail), skipped. */
  skipped: number;
  /** File size after repair, in bytes. */
  bytes: number;
}

/**
 * Every whole record of a JSONL file of records (the outbox, the pull request deliveries); a
 * torn last line (a crash mid-write) is repaired so the next append starts on a line of its own.
 */
export function loadRecordFile<R>(
  path: string,
  parse: (line: string) => R | undefined,
): LoadedRecords<R> {
  const cursor = new LineCursor(path);
  const lines = cursor.readNew();
  let skipped = 0;
  const tail = cursor.pendingTail();
  if (tail !== "") {
    if (parse(tail) !== undefined) {
      // Whole record, only its newline lost: keep it.
      appendFileSync(path, "\n");
      lines.push(tail);
    } else {
      truncateSync(path, cursor.position);
      skipped++;
    }
  }
  const parsed = parseLines(lines, parse);
  const bytes = cursor.position + (tail !== "" && skipped === 0 ? Buffer.byteLength(tail) + 1 : 0);
  return { records: parsed.items, skipped: skipped + parsed.skipped, bytes };
}

export interface LoadedOutbox {
  state: OutboxState;
  /** Lines that did not parse (garbage or the torn tail), skipped. */
  skipped: number;
  /** File size after repair, in bytes. */
  bytes: number;
}

export function loadOutboxFile(path: string): LoadedOutbox {
  const { records, skipped, bytes } = loadRecordFile(path, parseOutboxRecord);
  return { state: replayOutbox(records), skipped, bytes };
}

/** Rewrites the file atomically with only what `state` still needs; returns the new size. */
export function writeCompactedOutbox(
  path: string,
  state: OutboxState,
  keepDead: DeadLetter[],
): number {
  const records = compactedRecords(state, keepDead);
  const text = records.map((r) => `${encodeOutboxRecord(r)}\n`).join("");
  writeFileAtomic(path, text);
  return Buffer.byteLength(text);
}
