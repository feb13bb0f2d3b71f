// Creating an incident file without ever overwriting one, and without a half-written file
// after a crash (a duplicate slug is an error and overwrites nothing).

import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { nanoid } from "nanoid";
import { syncDirectory } from "../util/atomic-write.js";
import { PRIVATE_DIR, PRIVATE_FILE } from "../util/private-files.js";

/**
 * Writes `file` only if it does not exist, atomically: the content goes to a temp file that
 * is then hard-linked into place. link(2) fails on an existing name like open(O_EXCL) does,
 * but a crash can never leave a half-written incident behind. False when the name is taken.
 */
export function createExclusive(file: string, content: string): boolean {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const tmp = join(dir, `.${process.pid}.${nanoid(8)}.tmp`);
  const fd = openSync(tmp, "wx", PRIVATE_FILE);
  try {
    const buf = Buffer.from(content, "utf8");
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  syncDirectory(dir);
  return true;
}
