// What a forge's HTTP answer means for the delivery: try again (when, if the forge said) or
// give up until a person acts. Pure: the answer's status, headers and the time are arguments.

export type ForgeFailure = { kind: "retry"; retryAfterMs?: number } | { kind: "permanent" };

type Headers = Record<string, string | string[] | number | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return v === undefined ? undefined : String(Array.isArray(v) ? v[0] : v);
};

/** `Retry-After` (seconds or an HTTP date) or a spent rate limit's reset time, as a wait. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const after = header(headers, "retry-after");
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  // GitHub's primary rate limit: 403 or 429 with nothing left until the reset (epoch seconds).
  if (header(headers, "x-ratelimit-remaining") === "0") {
    const reset = Number(header(headers, "x-ratelimit-reset"));
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - now);
  }
  return undefined;
}

/**
 * 429, 5xx and a rate-limited 403 are worth trying again; other answers (401 a bad token, 403
 * a token without the scope, 404 no such repository or no access, 422 a request the forge
 * refuses) are not, until someone fixes the token, the repository or the config.
 */
export function forgeFailure(
  status: number | undefined,
  headers: Headers,
  now: number,
): ForgeFailure {
  const wait = retryAfterMs(headers, now);
  if (status === undefined || status === 429 || status >= 500 || status === 408)
    return { kind: "retry", ...(wait !== undefined && { retryAfterMs: wait }) };
  if (status === 403 && wait !== undefined) return { kind: "retry", retryAfterMs: wait };
  return { kind: "permanent" };
}

/** What to do about a status, in words for the page a permanent failure sends. */
export function statusAdvice(status: number | undefined): string {
  if (status === 401) return "the token was refused: check it is valid and not expired";
  if (status === 403)
    return "the token lacks a permission: see the README for the scopes each forge needs";
  if (status === 404)
    return "no such repository, or the token cannot see it: check `repository`, the remote URL and the token's access";
  if (status === 422)
    return "the forge refused the request: check `base` exists and the labels and reviewers are valid";
  return "";
}
