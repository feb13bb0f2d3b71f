// A file's version as its stat tells it (size, mtime, inode, ctime): a cache of what was read
// from a file compares it to know whether the file must be read again.
import { statSync } from "node:fs";

/** The stat signature of `path`, or undefined when it cannot be stat'ed (missing or not readable). */
export function fileSignature(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ino}:${s.ctimeMs}`;
  } catch {
    return undefined;
  }
}
