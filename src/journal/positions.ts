// Saved follow positions (one JSON file for all journals), so a restarted monitor resumes
// each journal exactly where it stopped: neither missing nor repeating a line.
import { readFileSync } from "node:fs";
import * as z from "zod";
import { hexDigest } from "../util/digest.js";

/** Where a journal was consumed up to. */
export interface JournalPosition {
  /** Inode of the file the offset refers to; a different inode means a new file. */
  inode: number;
  /** Byte offset just past the last complete line consumed. */
  offset: number;
  /** Where that last line starts, so it can be re-read in one small read. */
  lastLineStart: number;
  /**
   * sha1 (hex) of the bytes [lastLineStart, offset), newline included; "" at offset 0.
   * Catches a file replaced in place (same inode) that has grown past the old offset.
   */
  lastLineHash: string;
}

const positionSchema = z.object({
  inode: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  lastLineStart: z.number().int().nonnegative(),
  lastLineHash: z.string(),
});

const fileSchema = z.object({
  version: z.literal(1),
  journals: z.record(z.string(), z.unknown()),
});

/** The position of a journal that has not been read yet (or must be re-read from 0). */
export function startPosition(inode: number): JournalPosition {
  return { inode, offset: 0, lastLineStart: 0, lastLineHash: "" };
}

/** Hash of a consumed line as stored in `lastLineHash`. */
export function lineHash(bytes: Uint8Array): string {
  return hexDigest("sha1", bytes);
}

export interface LoadedPositions {
  positions: Map<string, JournalPosition>;
  /** Why the file or some entries were ignored; those journals are re-read from 0. */
  problems: string[];
}

/**
 * Loads saved positions. A missing file means none; an unreadable file or entry is
 * reported and ignored, because re-reading a journal (at-least-once) is safe while
 * guessing an offset is not.
 */
export function loadPositions(file: string): LoadedPositions {
  const positions = new Map<string, JournalPosition>();
  const problems: string[] = [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { positions, problems };
    throw err;
  }
  let parsed: z.infer<typeof fileSchema>;
  try {
    parsed = fileSchema.parse(JSON.parse(text));
  } catch {
    problems.push(`${file}: not a positions file (version 1); every journal is re-read from 0`);
    return { positions, problems };
  }
  for (const [path, value] of Object.entries(parsed.journals)) {
    const result = positionSchema.safeParse(value);
    if (result.success) positions.set(path, result.data);
    else problems.push(`${file}: journals.${path}: invalid position; re-reading it from 0`);
  }
  return { positions, problems };
}

/** The positions file's content, keys sorted for stable diffs. */
export function positionsText(positions: ReadonlyMap<string, JournalPosition>): string {
  return positionsParts(positions).join("");
}

/**
 * Each position's text in the file, kept while the position object lives: a commit replaces
 * a journal's position, so only journals read since the last save are serialized again (all
 * of them afresh held the event loop on every save).
 */
const entryText = new WeakMap<JournalPosition, string>();

/** `positionsText` in pieces, to write without joining them. */
export function positionsParts(positions: ReadonlyMap<string, JournalPosition>): string[] {
  const { paths, keys } = sortedPaths(positions);
  if (paths.length === 0) return ['{\n  "version": 1,\n  "journals": {}\n}\n'];
  // As JSON.stringify({ version: 1, journals }, null, 2) writes it, a journal at a time.
  const parts = ['{\n  "version": 1,\n  "journals": {\n'];
  for (let i = 0; i < paths.length; i++) {
    const pos = positions.get(paths[i]!)!;
    let value = entryText.get(pos);
    if (value === undefined) {
      value = JSON.stringify(pos, null, 2).replaceAll("\n", "\n    ");
      entryText.set(pos, value);
    }
    parts.push(keys[i]!, value);
  }
  parts.push("\n  }\n}\n");
  return parts;
}

/**
 * A positions map's paths in order, with each one's key text in the file, kept while the
 * map holds the same paths: sorting and quoting every path afresh held the loop on each save.
 */
const sortedKeys = new WeakMap<
  ReadonlyMap<string, JournalPosition>,
  { paths: string[]; keys: string[]; known: Set<string> }
>();

function sortedPaths(positions: ReadonlyMap<string, JournalPosition>) {
  const kept = sortedKeys.get(positions);
  if (kept !== undefined && kept.known.size === positions.size) {
    let same = true;
    for (const path of positions.keys())
      if (!kept.known.has(path)) {
        same = false;
        break;
      }
    if (same) return kept;
  }
  const paths = [...positions.keys()].sort();
  const keys = paths.map((path, i) => `${i === 0 ? "" : ",\n"}    ${JSON.stringify(path)}: `);
  const sorted = { paths, keys, known: new Set(paths) };
  sortedKeys.set(positions, sorted);
  return sorted;
}
