// When to try a failed delivery again: exponential backoff with full jitter, unless the
// receiver named a time itself (Retry-After).

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 5_000, capMs: 15 * 60_000 };

// Full jitter can draw ~0; a floor keeps a broken channel from being hammered in a loop.
const MIN_DELAY_MS = 500;

/** Delay before attempt `failures + 1`, after `failures` (>= 1) failed attempts. */
export function backoffDelay(failures: number, random: () => number, policy = DEFAULT_BACKOFF) {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.max(MIN_DELAY_MS, Math.floor(random() * ceiling));
}

// A receiver asking for more than this is treated as asking for this: alerts go stale.
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/** Parses a Retry-After header (delta seconds or an HTTP date) into ms from `now`. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
