// Tolerant JSONL reading: whole-file reads and an incremental cursor that reads only the
// bytes appended since its last call. Lines that do not parse are skipped and counted.
import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "../util/untrusted-file.js";
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

/** What one cursor may hold and read: files under a project's `.autoloop/` are anyone's. */
export interface CursorLimits {
  /** A line longer than this is skipped whole (counted in `overlong`), never held. */
  maxLineBytes?: number;
  /** A file larger than this is refused (`FileTooLargeError`) instead of read. */
  maxFileBytes?: number;
}

/** 16 MiB: a journal line holds at most a prompt and 64 KiB of output. */
export const MAX_LINE_BYTES = 16 << 20;

export class FileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly max: number,
  ) {
    super(
      `${path} is ${size} bytes, over the ${max}-byte limit for this file: it is not read (an agent wrote far more than the harness does; remove or truncate it)`,
    );
    this.name = "FileTooLargeError";
  }
}

/**
 * Reads appended lines from a file, from a byte offset onwards. Each `readNew()` returns
 * only the complete lines written since the previous call; a torn last line is held
 * back until its newline arrives, so cost is proportional to new bytes. The file is opened
 * as an untrusted one (no FIFO, no link: `openRegularFile`), and a line past the limit is
 * skipped while it is read, so neither blocks nor grows memory.
 */
export class LineCursor {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  /** Inside a line past `maxLineBytes`: bytes are dropped until its newline. */
  private skipping = false;
  /** Lines skipped for their length. */
  overlong = 0;

  constructor(
    readonly path: string,
    private offset = 0,
    private readonly limits: CursorLimits = {},
  ) {}

  /** Byte offset just past the last complete line returned (or inside a skipped one). */
  get position(): number {
    return this.offset - this.pendingSize;
  }

  /** Bytes of an unterminated final line seen so far. */
  get pendingBytes(): number {
    return this.pendingSize;
  }

  /** The unterminated final line, if any (a whole-file reader may still accept it). */
  pendingTail(): string {
    return Buffer.concat(this.pending).toString("utf8");
  }

  readNew(): string[] {
    const opened = openRegularFile(this.path);
    if (opened === undefined) return [];
    const { fd, stat } = opened;
    try {
      const size = stat.size;
      const maxFile = this.limits.maxFileBytes;
      if (maxFile !== undefined && size > maxFile)
        throw new FileTooLargeError(this.path, size, maxFile);
      if (size < this.offset) {
        // Truncated or replaced: start over from the beginning.
        this.offset = 0;
        this.pending = [];
        this.pendingSize = 0;
        this.skipping = false;
      }
      const lines: string[] = [];
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, size - this.offset)));
      while (this.offset < size) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.take(buf.subarray(0, n), lines);
      }
      return lines;
    } finally {
      closeSync(fd);
    }
  }

  private take(chunk: Buffer, lines: string[]): void {
    const max = this.limits.maxLineBytes ?? MAX_LINE_BYTES;
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const part = chunk.subarray(start, nl);
      if (this.skipping)
        this.skipping = false; // the long line ends here
      else if (this.pendingSize + part.length > max) this.overlong++;
      else if (this.pendingSize === 0) lines.push(part.toString("utf8"));
      else lines.push(Buffer.concat([...this.pending, part]).toString("utf8"));
      this.pending = [];
      this.pendingSize = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.skipping) return;
    if (this.pendingSize + rest.length > max) {
      this.pending = [];
      this.pendingSize = 0;
      this.skipping = true;
      this.overlong++;
      return;
    }
    this.pending.push(Buffer.from(rest)); // the read buffer is reused
    this.pendingSize += rest.length;
  }
}

/**
 * Reads every record of a journal file from byte `offset` (missing file: none). A torn last
 * line is included (and counts as skipped when it does not decode).
 */
export function readJournal(
  path: string,
  offset = 0,
  limits: CursorLimits = {},
): ReadResult<JournalRecord> {
  return parseLines(readAllLines(path, offset, limits), decodeRecord);
}

/** Every line of a JSONL file from byte `offset`, the torn last one included (missing file: none). */
export function readAllLines(path: string, offset = 0, limits: CursorLimits = {}): string[] {
  const cursor = new LineCursor(path, offset, limits);
  const lines = cursor.readNew();
  const tail = cursor.pendingTail();
  if (tail !== "") lines.push(tail);
  return lines;
}
