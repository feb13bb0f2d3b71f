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
