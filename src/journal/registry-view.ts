// The run registry beside a journal (`registry.jsonl`, docs/formats.md): the last line per run_id
// wins. The monitor reads it for pids, to tell a crashed run from one still running.
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { LineCursor, parseLines } from "./reader.js";

export interface RegistryEntry {
  run_id: string;
  status: string;
  /** The harness process; absent in entries written before it started. */
  pid?: number;
  /** Every other field, as written (preset, objective, iteration, updated_at, ...). */
  [key: string]: unknown;
}

/** `registry.jsonl` in the same folder as the journal. */
export function registryPathFor(journalPath: string): string {
  return join(dirname(journalPath), "registry.jsonl");
}

/** One registry line, or undefined when it is not a run record (counted by callers). */
export function parseRegistryLine(line: string): RegistryEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  if (typeof record.run_id !== "string" || record.run_id === "") return undefined;
  // Writers other than ours may store the pid as a string; anything else is no pid.
  const pid = typeof record.pid === "string" ? Number(record.pid) : record.pid;
  const entry: RegistryEntry = {
    ...record,
    run_id: record.run_id,
    status: typeof record.status === "string" ? record.status : "unknown",
  };
  if (typeof pid === "number" && Number.isInteger(pid) && pid > 0) entry.pid = pid;
  else delete entry.pid;
  return entry;
}

/**
 * An incrementally read registry: each `refresh()` reads only the lines appended since the
 * last one; a truncated or replaced file is read again from the start.
 */
export class RegistryView {
  readonly path: string;
  private runs = new Map<string, RegistryEntry>();
  private cursor: LineCursor;
  private inode: number | undefined;
  /** Lines that were not run records, since the file was last read from the start. */
  skipped = 0;

  constructor(journalPath: string) {
    this.path = registryPathFor(journalPath);
    this.cursor = new LineCursor(this.path);
  }

  /** What was read so far, without touching the file. */
  known(): ReadonlyMap<string, RegistryEntry> {
    return this.runs;
  }

  refresh(): ReadonlyMap<string, RegistryEntry> {
    let stat: { ino: number; size: number } | undefined;
    try {
      stat = statSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const readUpTo = this.cursor.position + this.cursor.pendingBytes;
    if (stat === undefined || stat.ino !== this.inode || stat.size < readUpTo) {
      // Gone, replaced or truncated: what was read no longer describes the file.
      if (this.inode !== undefined || readUpTo > 0) this.reset();
      this.inode = stat?.ino;
    }
    if (stat === undefined || stat.size === this.cursor.position + this.cursor.pendingBytes)
      return this.runs;
    const { items, skipped } = parseLines(this.cursor.readNew(), parseRegistryLine);
    this.skipped += skipped;
    for (const entry of items) this.runs.set(entry.run_id, entry);
    return this.runs;
  }

  private reset(): void {
    this.runs = new Map();
    this.cursor = new LineCursor(this.path);
    this.skipped = 0;
  }
}

/** Reads the whole registry beside `journalPath` (missing file: no runs). */
export function readRegistry(journalPath: string): Map<string, RegistryEntry> {
  return new Map(new RegistryView(journalPath).refresh());
}
