// A cross-process lock beside a file (`<path>.lock`, created with O_EXCL and holding the
// owner's pid and host). A lock whose owner is dead is taken over, so a crash never wedges
// writers; several hosts (pods sharing a volume) never judge each other's pids.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "./private-files.js";
import { isProcessAlive } from "./process.js";

const sleepBuffer = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleepBuffer, 0, 0, ms);
}

/**
 * A lock held by another host cannot be checked by pid; critical sections last
 * milliseconds, so one this old was left by a crashed (or vanished) host.
 */
export const FOREIGN_LOCK_STALE_MS = 30_000;

/** The lock file's content: `{"pid": …, "host": …}` (older versions wrote the bare pid). */
export function lockOwner(text: string): { pid: number; host: string | undefined } | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), host: undefined };
  try {
    const parsed = JSON.parse(trimmed) as { pid?: unknown; host?: unknown };
    if (!Number.isInteger(parsed.pid) || (parsed.pid as number) <= 0) return undefined;
    return {
      pid: parsed.pid as number,
      host: typeof parsed.host === "string" ? parsed.host : undefined,
    };
  } catch {
    return undefined;
  }
}

function tryAcquire(lockPath: string): boolean {
  try {
    const fd = openSync(lockPath, "wx", PRIVATE_FILE);
    writeSync(fd, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`);
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return false;
  }
}

function removeIfStale(lockPath: string, now: number): void {
  let owner: ReturnType<typeof lockOwner>;
  let age: number;
  try {
    owner = lockOwner(readFileSync(lockPath, "utf8"));
    age = now - statSync(lockPath).mtimeMs;
  } catch {
    return; // Gone already: try again.
  }
  // Being written (empty) or unreadable: only age can tell it was abandoned.
  const stale =
    owner === undefined || (owner.host !== undefined && owner.host !== hostname())
      ? age > FOREIGN_LOCK_STALE_MS
      : !isProcessAlive(owner.pid);
  if (stale) rmSync(lockPath, { force: true });
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
    removeIfStale(lockPath, Date.now());
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
