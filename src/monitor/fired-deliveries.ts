// The pages a daemonless `fire` owes: the pull request deliveries it gave up on, which it marks
// in the queue file (`dead` lines `by: "fire"`) since it has no outbox of its own. The monitor
// reads the file on from where it stopped (its offset kept on disk) and pages each once.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { UndeliveredRun } from "./outbox/pull-request-failed.js";

/** One pass's reading: the runs to page, and the offset to keep once they are in the outbox. */
export interface FiredDeadReading {
  undelivered: UndeliveredRun[];
  offset: number;
}

/** The `dead` lines a fire marked in `text` (whole lines only), given up on at or after `since`. */
export function firedDeadLines(text: string, since: number): UndeliveredRun[] {
  const out: UndeliveredRun[] = [];
  for (const line of text.split("\n")) {
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const { type, by, id, schedule, error } = r;
    const at = Date.parse(String(r.at));
    if (type !== "dead" || by !== "fire" || !(at >= since)) continue;
    if (typeof id !== "string" || typeof schedule !== "string" || typeof error !== "string")
      continue;
    out.push({ schedule, runId: id, error, at });
  }
  return out;
}

export function readFiredDead(
  deliveriesPath: string,
  positionPath: string,
  since: number,
): FiredDeadReading {
  let offset = 0;
  try {
    offset = Number(JSON.parse(readFileSync(positionPath, "utf8")).offset) || 0;
  } catch {}
  let fd: number;
  try {
    fd = openSync(deliveriesPath, "r");
  } catch {
    return { undelivered: [], offset };
  }
  try {
    const size = fstatSync(fd).size;
    // A daemon's compaction rewrote the file shorter (dropping every dead line): from its start.
    if (size < offset) offset = 0;
    const buf = Buffer.alloc(size - offset);
    const got = buf.length === 0 ? 0 : readSync(fd, buf, 0, buf.length, offset);
    const end = buf.lastIndexOf(0x0a, got - 1) + 1;
    const text = buf.toString("utf8", 0, end);
    return { undelivered: firedDeadLines(text, since), offset: offset + end };
  } finally {
    closeSync(fd);
  }
}

export function saveFiredOffset(positionPath: string, offset: number): void {
  writeFileAtomic(positionPath, `${JSON.stringify({ offset })}\n`);
}
