// Atomic small-file rewrites: write a temp file beside the target, fsync, rename over it,
// then fsync the directory, so readers see the old or the new content, never half of it.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "./private-files.js";

/**
 * `durable: false` skips the fsyncs, for files whose loss in a machine crash costs nothing
 * (readers see the old content or the new, never half: the rename is still atomic).
 */
export function writeFileAtomic(
  path: string,
  content: string | Buffer,
  options: { durable?: boolean } = {},
): void {
  const durable = options.durable ?? true;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const tmp = join(
    dir,
    `.${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}.tmp`,
  );
  const buf = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  try {
    const fd = openSync(tmp, "w", PRIVATE_FILE);
    try {
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (durable) syncDirectory(dir);
}

/** fsyncs a directory so a rename or a new file in it survives a crash (best effort). */
export function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  }
}

/** A temp file name beside the target, unique per process and call. */
function tempPath(dir: string): string {
  return join(
    dir,
    `.${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}.tmp`,
  );
}

/** A long string is encoded a part per turn: all of it in one Buffer.from would hold the loop. */
const PART_CHARS = 256 * 1024;

/** `text` cut in parts of about PART_CHARS, never between the two halves of a surrogate pair. */
export function stringParts(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  while (text.length - from > PART_CHARS) {
    let to = from + PART_CHARS;
    const unit = text.charCodeAt(to);
    if (unit >= 0xdc00 && unit <= 0xdfff) to--; // `to` would split a pair: cut before it
    parts.push(text.slice(from, to));
    from = to;
  }
  parts.push(text.slice(from));
  return parts;
}

/** `content` as parts of about PART_CHARS: long ones cut, short ones joined, a part per write. */
function* writeParts(content: string | readonly string[]): Generator<string> {
  if (typeof content === "string") {
    yield* stringParts(content);
    return;
  }
  let group: string[] = [];
  let size = 0;
  for (const part of content) {
    if (part.length > PART_CHARS) {
      if (group.length > 0) yield group.join("");
      group = [];
      size = 0;
      yield* stringParts(part);
      continue;
    }
    group.push(part);
    size += part.length;
    if (size >= PART_CHARS) {
      yield group.join("");
      group = [];
      size = 0;
    }
  }
  if (group.length > 0) yield group.join("");
}

/**
 * `writeFileAtomic` with every step on libuv's pool, for periodic saves of a few hundred KB
 * (the monitor's positions and tracker) that must not stall the event loop. Content is
 * written a part of about 256 KB per write: a few MB never turn into one buffer at once, and
 * content given in many small parts never into one string.
 */
export async function writeFileAtomicAsync(
  path: string,
  content: string | readonly string[],
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
  const tmp = tempPath(dir);
  try {
    const file = await open(tmp, "w", PRIVATE_FILE);
    try {
      for (const part of writeParts(content)) {
        // A write may take fewer bytes than given (a full disk): the rest is written after.
        const bytes = Buffer.from(part, "utf8");
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten } = await file.write(bytes, done, bytes.length - done);
          if (bytesWritten === 0) throw new Error(`${path}: no byte written`);
          done += bytesWritten;
        }
      }
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  }
}
