// The pages a daemonless `fire` owes: the pull request deliveries it gave up on, which it marks
// in the queue file (`dead` lines `by: "fire"`) since it has no outbox of its own. The monitor
// pages each such line once its page is on disk in the outbox, then marks it `paged` in the same
// file: the mark, not a byte offset, says what was paged, so a compaction (which keeps the
// unmarked lines and drops the marked ones with their marks) never loses nor repeats a page.
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { appendLinesLocked } from "../journal/append.js";
import type { UndeliveredRun } from "./outbox/pull-request-failed.js";

/** One reading of the file: its fire `dead` lines not marked yet, and which file that was. */
export interface FiredDeadReading {
  unpaged: UndeliveredRun[];
  /** Device, inode, size and mtime: the same again (nothing appended, no rewrite) is not re-read. */
  seen: string;
}

/** The `dead` lines a fire wrote in `text` with no `paged` line after them (whole lines only). */
export function unpagedFiredDead(text: string): UndeliveredRun[] {
  const unpaged = new Map<string, UndeliveredRun>();
  for (const line of text.split("\n")) {
    // Most lines are jobs, whole reports: only these two kinds are parsed.
    if (!line.includes('"dead"') && !line.includes('"paged"')) continue;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const { type, by, id, schedule, error } = r;
    if (typeof id !== "string") continue;
    if (type === "paged") unpaged.delete(id);
    if (type !== "dead" || by !== "fire") continue;
    if (typeof schedule !== "string" || typeof error !== "string") continue;
    unpaged.set(id, { schedule, runId: id, error, at: Date.parse(String(r.at)) });
  }
  return [...unpaged.values()];
}

/** The file's unpaged fire `dead` lines; undefined when it is missing or unchanged since `seen`. */
export function readFiredDead(path: string, seen?: string): FiredDeadReading | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const now = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    if (now === seen) return undefined;
    return { unpaged: unpagedFiredDead(readFileSync(fd, "utf8")), seen: now };
  } finally {
    closeSync(fd);
  }
}

/** Marks the runs' `dead` lines as paged (through the queue file's lock, as every writer does). */
export function markFiredPaged(path: string, runIds: readonly string[], now: Date): void {
  if (runIds.length === 0) return;
  const at = now.toISOString();
  const lines = runIds.map((id) => JSON.stringify({ type: "paged", id, at }));
  appendLinesLocked(path, lines, { private: true, fsync: true });
}
