// Tolerant JSONL reading: whole-file reads and an incremental cursor that reads only the
// bytes appended since its last call. Lines that do not parse are skipped and counted.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { decodeRecord, type JournalRecord } from "./codec.js";

const NEWLINE = 0x0a;
const CHUNK = 1 << 20;

/** Splits complete lines out of `buf`; returns them and the unterminated remainder. */
export function splitLines(buf: Buffer): { lines: string[]; rest: Buffer } {
  const lines: string[] = [];
  let start = 0;
  for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
    lines.push(buf.toString("utf8", start, nl));
    start = nl + 1;
  }
  return { lines, rest: start === 0 ? buf : buf.subarray(start) };
}

export interface ReadResult<T> {
  items: T[];
  /** Lines that were not valid records (garbage, or a torn final line). */
  skipped: number;
}

/** Parses JSONL text with `parse`, skipping and counting blank-free lines it rejects. */
export function parseLines<T>(
  lines: Iterable<string>,
  parse: (line: string) => T | undefined,
): ReadResult<T> {
  const items: T[] = [];
  let skipped = 0;
  for (const raw of lines) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    const item = parse(line);
    if (item === undefined) skipped++;
    else items.push(item);
  }
  return { items, skipped };
}

/**
 * Reads appended lines from a file, from a byte offset onwards. Each `readNew()` returns
 * only the complete lines written since the previous call; a torn last line is held
 * back until its newline arrives, so cost is proportional to new bytes.
 */
export class LineCursor {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    readonly path: string,
    private offset = 0,
  ) {}

  /** Byte offset just past the last complete line returned. */
  get position(): number {
    return this.offset - this.pending.length;
  }

  /** Bytes of an unterminated final line seen so far. */
  get pendingBytes(): number {
    return this.pending.length;
  }

  /** The unterminated final line, if any (a whole-file reader may still accept it). */
  pendingTail(): string {
    return this.pending.toString("utf8");
  }

  readNew(): string[] {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        // Truncated or replaced: start over from the beginning.
        this.offset = 0;
        this.pending = Buffer.alloc(0);
      }
      const chunks: Buffer[] = [this.pending];
      while (this.offset < size) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - this.offset));
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        chunks.push(n === buf.length ? buf : buf.subarray(0, n));
        this.offset += n;
      }
      const { lines, rest } = splitLines(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      this.pending = Buffer.from(rest);
      return lines;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Reads every record of a journal file from byte `offset` (missing file: none). A torn last
 * line is included (and counts as skipped when it does not decode).
 */
export function readJournal(path: string, offset = 0): ReadResult<JournalRecord> {
  return parseLines(readAllLines(path, offset), decodeRecord);
}

/** Every line of a JSONL file from byte `offset`, the torn last one included (missing file: none). */
export function readAllLines(path: string, offset = 0): string[] {
  const cursor = new LineCursor(path, offset);
  const lines = cursor.readNew();
  const tail = cursor.pendingTail();
  if (tail !== "") lines.push(tail);
  return lines;
}
