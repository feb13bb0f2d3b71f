// A receiver's Retry-After header (seconds or an HTTP date) as a delay, capped at an hour.

/** The longest a receiver may hold back our retries; a longer ask is capped to this. */
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
