// Creating a file that must not exist yet, atomically even on NFS: the text goes into a file of
// the creator's own, which is then hard-linked to the name (link(2) fails with EEXIST when
// another process got there first), so the file appears whole, never half-written.
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "./private-files.js";

/** Filesystems without hard links (some FUSE and SMB mounts) answer link(2) with these. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** Without hard links: O_EXCL, which NFSv3 and later and every local filesystem honour. */
export function createExclusiveFile(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", PRIVATE_FILE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return false;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The creator's own file; its folder is made the first time (one syscall saved after). */
function writeOwn(own: string, text: string): void {
  try {
    writeFileSync(own, text, { mode: PRIVATE_FILE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dirname(own), { recursive: true, mode: PRIVATE_DIR });
    writeFileSync(own, text, { mode: PRIVATE_FILE });
  }
}

/**
 * Creates `path` with `text` (true), or finds it there already (false). `own` is the creator's
 * temporary name beside it, unique to it. An NFS reply lost after the server made the link
 * reads as a failure; the temporary file's link count (2) says it succeeded (open(2), NOTES).
 */
export function createByLink(path: string, own: string, text: string): boolean {
  writeOwn(own, text);
  try {
    linkSync(own, path);
    return true;
  } catch (err) {
    if (statSync(own).nlink === 2) return true;
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return false;
    if (NO_LINKS.has(code)) return createExclusiveFile(path, text);
    throw err;
  } finally {
    rmSync(own, { force: true });
  }
}
