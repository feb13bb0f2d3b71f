// The append-only JSONL store under tasks/ and memory/: one entry per line, read whole and
// tolerant of bad lines under a size cap, changed only under a cross-process lock, removals
// as tombstones (docs/formats.md, "Tasks file" and "Memory").
import { appendLineOnce } from "../../journal/append.js";
import { encodeObject } from "../../journal/codec.js";
import { parseLines, type ReadResult, readAllLines } from "../../journal/reader.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { withFileLock } from "../../util/file-lock.js";

/** A removal: `targetId` and every older line with that id no longer count. */
export interface Tombstone<K extends string> {
  type: K;
  id: string;
  targetId: string;
  reason: string;
  created: string;
}

/** Entry timestamps carry no milliseconds: `2026-04-07T12:00:00Z`. */
export function entryTimestamp(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** A string field's value, or undefined when missing or not a string. */
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** One line as a JSON object; undefined for anything else. */
export function parseObjectLine(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    return parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A tombstone line, keys in the public autoloop's order. */
export function encodeTombstone(t: Tombstone<string>): string {
  return encodeObject({
    id: t.id,
    type: t.type,
    target_id: t.targetId,
    reason: t.reason,
    created: t.created,
  });
}

/** The tombstone in `o` (whose id and type are checked by the caller); undefined without a target. */
export function decodeTombstone<K extends string>(
  type: K,
  id: string,
  o: Record<string, unknown>,
): Tombstone<K> | undefined {
  const targetId = str(o.target_id);
  if (targetId === undefined) return undefined;
  return { type, id, targetId, reason: str(o.reason) ?? "", created: str(o.created) ?? "" };
}

/** Live entries newest first: each id once (its newest line), tombstoned ids left out. */
export function liveNewestFirst<E extends { id: string; type: string }, K extends string>(
  entries: readonly (E | Tombstone<K>)[],
  tombstoneType: K,
): E[] {
  const isTombstone = (e: E | Tombstone<K>): e is Tombstone<K> => e.type === tombstoneType;
  const dead = new Set<string>();
  const seen = new Set<string>();
  const live: E[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (isTombstone(e)) {
      dead.add(e.targetId);
      continue;
    }
    if (dead.has(e.id) || seen.has(e.id)) continue;
    seen.add(e.id);
    live.push(e);
  }
  return live;
}

export interface EntryCodec<E> {
  encode(entry: E): string;
  /** undefined for a line that is not an entry (it is skipped and counted). */
  decode(line: string): E | undefined;
}

/** One JSONL file of entries `E`. */
export class JsonlStore<E> {
  constructor(
    readonly path: string,
    private readonly codec: EntryCodec<E>,
    private readonly maxFileBytes: number,
  ) {}

  /** Every line decoded in file order, and how many were not entries. */
  read(): ReadResult<E> {
    return parseLines(
      readAllLines(this.path, 0, { maxFileBytes: this.maxFileBytes }),
      this.codec.decode,
    );
  }

  entries(): E[] {
    return this.read().items;
  }

  /** Runs `fn` holding the file's cross-process lock. */
  locked<T>(fn: () => T): T {
    return withFileLock(this.path, fn);
  }

  /** Appends one entry line (call under the lock). */
  append(entry: E): void {
    appendLineOnce(this.path, this.codec.encode(entry));
  }

  /** Replaces the whole file with `entries` (call under the lock). */
  rewrite(entries: readonly E[]): void {
    writeFileAtomic(this.path, entries.map((e) => `${this.codec.encode(e)}\n`).join(""));
  }

  /** Reads the file and appends at most one entry, all under the lock. */
  change<T>(fn: (entries: E[]) => { entry?: E; result: T }): T {
    return this.locked(() => {
      const { entry, result } = fn(this.entries());
      if (entry !== undefined) this.append(entry);
      return result;
    });
  }
}
