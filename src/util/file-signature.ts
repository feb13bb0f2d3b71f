// A file's version as its stat tells it (size, mtime, inode, ctime): a cache of what was read
// from a file compares it to know whether the file must be read again.
import { statSync } from "node:fs";

export interface FileVersion {
  /** Compared by caches: size, mtime, inode and ctime. */
  signature: string;
  size: number;
}

/** The version of `path`, or undefined when it cannot be stat'ed (missing or not readable). */
export function fileVersion(path: string): FileVersion | undefined {
  try {
    const s = statSync(path);
    return { signature: `${s.size}:${s.mtimeMs}:${s.ino}:${s.ctimeMs}`, size: s.size };
  } catch {
    return undefined;
  }
}

/** The stat signature of `path`, or undefined when it cannot be stat'ed (missing or not readable). */
export function fileSignature(path: string): string | undefined {
  return fileVersion(path)?.signature;
}
