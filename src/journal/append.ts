// Appends whole lines to a JSONL file: one write(2) per line on an O_APPEND descriptor,
// then fsync (at once, or deferred to libuv's pool), so concurrent writers never interleave
// inside a line and a crash never loses an acknowledged line. A write that failed (a full
// disk) leaves the file ending inside a line: the next append ends it first.
import { closeSync, fstatSync, fsync, fsyncSync, mkdirSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { withFileLock } from "../util/file-lock.js";
import { PRIVATE_DIR, PRIVATE_FILE } from "../util/private-files.js";
import { openForAppend } from "../util/untrusted-file.js";
import { encodeRecord, type JournalRecord } from "./codec.js";

/** Writes `buf` fully; regular-file writes on Linux complete in one call unless the disk is full. */
function writeAll(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

/**
 * True when the file ends inside a line: a writer crashed mid-write. Appending straight
 * after it would glue our line to the torn one, so the appender ends it first.
 */
function endsTorn(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

export interface AppenderOptions {
  /**
   * true (default): fsync after each line; false: never (the caller calls `sync()`);
   * "deferred": the line is written at once and fsynced right after on libuv's pool, a
   * burst's lines together (`durable()` resolves once they are on disk).
   */
  fsync?: boolean | "deferred";
  /** The scheduler's own state (ledger, outbox): 0600 in a 0700 folder. */
  private?: boolean;
  /** A deferred fsync that failed (the lines are written, their durability is not known). */
  onSyncError?: (err: Error) => void;
}

/** An open append handle on one JSONL file. */
export class LineAppender {
  private fd: number | undefined;
  /** Deferred mode: lines written since the last fsync started. */
  private unsynced = 0;
  private syncing: Promise<void> | undefined;
  /** The last deferred fsync's failure, until one succeeds. */
  private syncFailure: Error | undefined;
  /** Just opened, or a write failed: check the last byte before the next line. */
  private mayBeTorn = false;

  constructor(
    readonly path: string,
    private readonly options: AppenderOptions = {},
  ) {}

  /** Appends one line (a trailing newline is added) and syncs it to disk (see `fsync`). */
  appendLine(line: string): void {
    if (line.includes("\n"))
      throw new Error(`refusing to append a line containing a newline to ${this.path}`);
    if (this.fd === undefined) {
      const own = this.options.private === true;
      mkdirSync(dirname(this.path), { recursive: true, ...(own && { mode: PRIVATE_DIR }) });
      this.fd = openForAppend(this.path, own ? PRIVATE_FILE : 0o644);
      this.mayBeTorn = true;
    }
    // After a failed write (a full disk) the file may end inside a line: end it first, so
    // the next line never joins the torn one.
    if (this.mayBeTorn && endsTorn(this.fd)) writeAll(this.fd, Buffer.from("\n"));
    this.mayBeTorn = false;
    try {
      writeAll(this.fd, Buffer.from(`${line}\n`, "utf8"));
    } catch (err) {
      this.mayBeTorn = true;
      throw err;
    }
    if (this.options.fsync === "deferred") {
      this.unsynced++;
      this.durable().catch(() => {}); // a failure goes to onSyncError
    } else if (this.options.fsync !== false) fsyncSync(this.fd);
  }

  /**
   * Deferred mode: resolves once every line appended so far is on disk; rejects while the
   * last fsync has failed (the lines are written, not known to be durable).
   */
  async durable(): Promise<void> {
    if (this.unsynced > 0 || this.syncing !== undefined) {
      this.syncing ??= this.syncAll();
      await this.syncing;
    }
    if (this.syncFailure !== undefined) throw this.syncFailure;
  }

  private async syncAll(): Promise<void> {
    while (this.unsynced > 0) {
      this.unsynced = 0;
      const fd = this.fd;
      try {
        await this.sync();
        if (this.fd === fd) this.syncFailure = undefined;
      } catch (err) {
        // A descriptor closed meanwhile was fsynced by `close()` itself.
        if (this.fd === fd) this.failed(err as Error);
      }
    }
    this.syncing = undefined;
  }

  private failed(err: Error): void {
    this.syncFailure = err;
    this.options.onSyncError?.(err);
  }

  /** fsync on libuv's thread pool, for appenders opened with `fsync: false` (group commit). */
  sync(): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) return Promise.resolve();
    return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  }

  /**
   * Closes the descriptor; in deferred mode, fsyncs first what may not be on disk yet (a
   * failure is reported to `onSyncError`, not thrown: the lines are written).
   */
  close(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    const unsynced = this.unsynced > 0 || this.syncing !== undefined;
    this.unsynced = 0;
    try {
      if (unsynced) fsyncSync(fd);
      this.syncFailure = undefined;
    } catch (err) {
      this.failed(err as Error);
    } finally {
      closeSync(fd);
    }
  }
}

/** Appends one line to `path` with a short-lived handle (for one-shot CLI commands). */
export function appendLineOnce(path: string, line: string, options: AppenderOptions = {}): void {
  const appender = new LineAppender(path, options);
  try {
    appender.appendLine(line);
  } finally {
    appender.close();
  }
}

/**
 * Appends lines under `path`'s cross-process lock, opening the file by path each time: a file
 * that another process rewrites under the same lock (renamed over) is never written past.
 */
export function appendLinesLocked(
  path: string,
  lines: readonly string[],
  options: AppenderOptions = {},
): void {
  withFileLock(path, () => {
    for (const line of lines) appendLineOnce(path, line, options);
  });
}

/** A journal writer: encodes records in the docs/formats.md byte style and appends them. */
export class JournalWriter {
  private readonly appender: LineAppender;

  constructor(
    readonly path: string,
    options: { fsync?: boolean } = {},
  ) {
    this.appender = new LineAppender(path, options);
  }

  append(record: JournalRecord): string {
    const line = encodeRecord(record);
    this.appender.appendLine(line);
    return line;
  }

  close(): void {
    this.appender.close();
  }
}
