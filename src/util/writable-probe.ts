// Checks that the state dir still takes writes, by creating and removing a small file.
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorText } from "./errors.js";

export interface WritableResult {
  ok: boolean;
  /** `CODE: message` when not writable, e.g. "ENOTDIR: not a directory, open '...'". */
  error?: string;
}

/**
 * Writes and removes `.healthz-<pid>-<random>.tmp` in `dir`. Never creates `dir` itself: a state
 * dir that vanished or became a file is exactly what this must report. Does not throw.
 */
export async function probeWritable(dir: string): Promise<WritableResult> {
  const file = join(dir, `.healthz-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(file, "ok\n", { flag: "wx" });
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
  try {
    await rm(file, { force: true });
  } catch (err) {
    // Writable but not cleanable (e.g. sticky bit games) still breaks atomic renames later.
    return { ok: false, error: `created ${file} but could not remove it: ${errorText(err)}` };
  }
  return { ok: true };
}

/**
 * The same check, synchronously: taken once at start-up, so that the first /healthz does not
 * wait for a disk check queued behind the schedule files being read (libuv's thread pool).
 */
export function probeWritableSync(dir: string): WritableResult {
  const file = join(dir, `.healthz-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(file, "ok\n", { flag: "wx" });
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
  try {
    rmSync(file, { force: true });
  } catch (err) {
    return { ok: false, error: `created ${file} but could not remove it: ${errorText(err)}` };
  }
  return { ok: true };
}

export interface CachedProbeOptions {
  /** How long one result is reused; /healthz may be polled every second by several checkers. */
  ttlMs?: number;
  now?: () => number;
  probe?: (dir: string) => Promise<WritableResult>;
  /** A first result taken now (probeWritableSync), so no ask ever waits for the first check. */
  initial?: WritableResult;
}

/**
 * Wraps probeWritable so repeated calls within `ttlMs` share one disk check (and one in
 * flight). Past the TTL the last result is still answered at once, for up to another TTL,
 * while a fresh check runs: a probe never waits on the disk behind a busy event loop (a
 * 100,000-schedule load), and a state dir that stops taking writes shows on the next ask.
 */
export function cachedWritableProbe(
  dir: string,
  options: CachedProbeOptions = {},
): () => Promise<WritableResult> {
  const ttlMs = options.ttlMs ?? 5000;
  const now = options.now ?? Date.now;
  const probe = options.probe ?? probeWritable;
  let last: { at: number; result: WritableResult } | undefined =
    options.initial === undefined ? undefined : { at: now(), result: options.initial };
  let inFlight: Promise<WritableResult> | undefined;
  // `t < at` catches the clock moving back, which would otherwise freeze the cache.
  const age = (t: number) => (last === undefined || t < last.at ? Infinity : t - last.at);
  return () => {
    const t = now();
    if (age(t) >= ttlMs && inFlight === undefined) {
      // Aged from when the check finished: a slow disk does not make every later ask wait.
      inFlight = probe(dir)
        .then((result) => {
          last = { at: now(), result };
          return result;
        })
        .finally(() => {
          inFlight = undefined;
        });
    }
    if (last !== undefined && age(t) < 2 * ttlMs) return Promise.resolve(last.result);
    return inFlight ?? Promise.resolve(last!.result);
  };
}
