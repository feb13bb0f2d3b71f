// Reading a journal from a saved position: checking that the position still belongs to the
// file on disk, then decoding the new bytes in large chunks, one batch per chunk.
import { readSync, type Stats } from "node:fs";
import { openRegularFile } from "../util/untrusted-file.js";
import type { JournalRecord } from "./codec.js";
import { decodeLines } from "./lazy-decode.js";
import { type JournalPosition, lineHash } from "./positions.js";
import { MAX_LINE_BYTES } from "./reader.js";

const NEWLINE = 0x0a;
/**
 * 1 MB: few reads, yet a batch's strings die young (larger chunks cost more CPU in garbage
 * collection on a long first pass).
 */
export const DEFAULT_CHUNK_BYTES = 1 << 20;

/** Why a journal is read again from byte 0. */
export type ResetReason = "rotated" | "truncated" | "replaced";

export type PositionCheck = { kind: "resume" } | { kind: "reset"; reason: ResetReason };

/** New complete lines of one journal, decoded; `skipped` counts lines that were not records. */
export interface LineBatch {
  records: JournalRecord[];
  skipped: number;
  /** Byte offset of the first line in the batch. */
  startOffset: number;
  /** Byte offset just past the last complete line in the batch. */
  endOffset: number;
  /** The batch is a line past the length limit, skipped (no records). */
  longLine?: true;
}

/** A batch plus what the position becomes once the batch has been processed. */
export interface ReadBatch extends LineBatch {
  next: JournalPosition;
}

function readExactly(fd: number, start: number, end: number): Buffer | undefined {
  const buf = Buffer.allocUnsafe(end - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n <= 0) return undefined;
    got += n;
  }
  return buf;
}

/**
 * Decides whether `pos` can be resumed on the open file `fd` (inode, size): a new inode
 * is another file, a shorter file was truncated, and a last line that no longer hashes
 * the same means the file was rewritten in place, possibly longer than before.
 */
export function checkPosition(
  fd: number,
  file: { inode: number; size: number },
  pos: JournalPosition,
): PositionCheck {
  if (pos.inode !== file.inode) return { kind: "reset", reason: "rotated" };
  if (file.size < pos.offset) return { kind: "reset", reason: "truncated" };
  if (pos.offset === 0) return { kind: "resume" };
  const line = readExactly(fd, pos.lastLineStart, pos.offset);
  if (line === undefined || lineHash(line) !== pos.lastLineHash) {
    return { kind: "reset", reason: "replaced" };
  }
  return { kind: "resume" };
}

/**
 * Yields batches of the complete lines in [pos.offset, end). A torn last line (no newline
 * yet) is not consumed: the next read starts at it again, once it is complete, unless it is
 * already longer than `maxLineBytes`: then it is skipped (a batch of no records, one skipped).
 * Only new bytes are read; `counter.bytesRead` grows by what was read.
 */
export function* readBatches(
  fd: number,
  pos: JournalPosition,
  end: number,
  counter: { bytesRead: number },
  chunkBytes = DEFAULT_CHUNK_BYTES,
  /** The bytes at `pos.offset`, already read by the caller: the first chunk. */
  first?: Buffer,
  maxLineBytes = MAX_LINE_BYTES,
): Generator<ReadBatch> {
  let start = pos.offset;
  let readAt = start;
  let carry: Buffer | undefined;
  let given = first;
  while (readAt < end) {
    let got: Buffer;
    if (given !== undefined) {
      got = given;
      given = undefined;
    } else {
      const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, end - readAt));
      const n = readSync(fd, chunk, 0, chunk.length, readAt);
      if (n <= 0) break;
      got = n === chunk.length ? chunk : chunk.subarray(0, n);
    }
    readAt += got.length;
    counter.bytesRead += got.length;
    const data = carry === undefined ? got : Buffer.concat([carry, got]);
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline === -1 && data.length > maxLineBytes) {
      // A line past the limit (a run can write anything): skipped as it is read, so it is
      // neither held nor read again; what follows up to its newline is a fragment, skipped.
      carry = undefined;
      const kept = data.subarray(data.length - Math.min(4096, data.length));
      yield {
        records: [],
        skipped: 1,
        longLine: true,
        startOffset: start,
        endOffset: readAt,
        next: {
          inode: pos.inode,
          offset: readAt,
          lastLineStart: readAt - kept.length,
          lastLineHash: lineHash(kept),
        },
      };
      start = readAt;
      continue;
    }
    if (lastNewline === -1) {
      carry = data;
      continue;
    }
    const complete = data.subarray(0, lastNewline + 1);
    carry = lastNewline + 1 < data.length ? data.subarray(lastNewline + 1) : undefined;
    // A negative fromIndex would count from the end, so a lone "\n" needs its own case.
    const lastStart =
      complete.length < 2 ? 0 : complete.lastIndexOf(NEWLINE, complete.length - 2) + 1;
    // Decoded from the bytes, line by line (one non-ASCII character would make a whole
    // chunk's string two-byte), the agents' output only when read.
    const { items, skipped } = decodeLines(complete);
    const endOffset = start + complete.length;
    yield {
      records: items,
      skipped,
      startOffset: start,
      endOffset,
      next: {
        inode: pos.inode,
        offset: endOffset,
        lastLineStart: start + lastStart,
        lastLineHash: lineHash(complete.subarray(lastStart)),
      },
    };
    start = endOffset;
  }
}

/**
 * Opens a followed journal: undefined when it is gone, or when it is the file refused last
 * time. A FIFO, a link or a device in a journal's place is refused (thrown), once per file.
 */
export function openFollowed(
  f: { path: string; refused?: string | undefined },
  stat: Stats,
): ReturnType<typeof openRegularFile> {
  const refusal = `${stat.dev}:${stat.ino}`;
  try {
    const file = openRegularFile(f.path);
    f.refused = undefined;
    return file;
  } catch (err) {
    if (f.refused === refusal) return undefined;
    f.refused = refusal;
    throw err;
  }
}
