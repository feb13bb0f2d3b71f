// A cross-process lock beside a file (`<path>.lock`, created with O_EXCL and holding the
// owner's pid). A lock whose owner is dead is taken over, so a crash never wedges writers.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "./private-files.js";
import { isProcessAlive } from "./process.js";

const sleepBuffer = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleepBuffer, 0, 0, ms);
}

function tryAcquire(lockPath: string): boolean {
  try {
    const fd = openSync(lockPath, "wx", PRIVATE_FILE);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return false;
  }
}

function removeIfStale(lockPath: string): void {
  let owner: number;
  try {
    owner = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
  } catch {
    return; // Gone already, or being written: try again.
  }
  if (Number.isInteger(owner) && owner > 0 && !isProcessAlive(owner))
    rmSync(lockPath, { force: true });
}

/**
 * Runs `fn` while holding the lock for `path`. Synchronous on purpose: the critical
 * sections are a read and an append of a small file.
 */
export function withFileLock<T>(path: string, fn: () => T, timeoutMs = 10_000): T {
  const lockPath = `${path}.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const deadline = Date.now() + timeoutMs;
  let wait = 1;
  while (!tryAcquire(lockPath)) {
    removeIfStale(lockPath);
    if (Date.now() > deadline) {
      throw new Error(
        `${lockPath}: still locked after ${timeoutMs} ms; if no autoloop process is running, delete the file`,
      );
    }
    sleepSync(wait);
    wait = Math.min(wait * 2, 50);
  }
  try {
    return fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}
