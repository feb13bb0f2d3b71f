// GitLab's client, Gitbeaker, as the daemon sets it up (merge requests and issues alike): one
// try per request, and what a failed call means (retry, when GitLab said, or give up).
import { createRequesterFn, GitbeakerRequestError } from "@gitbeaker/requester-utils";
import { Gitlab } from "@gitbeaker/rest";
import { forgeFailure, statusAdvice } from "./failure.js";
import { ForgeError } from "./forge.js";

interface GitbeakerFailure {
  message?: string;
  cause?: { response?: { status?: number; headers?: Headers } };
}

/** A failed call as a ForgeError: the status, GitLab's message and what to do about it. */
export function gitlabFailure(what: string, err: unknown): ForgeError {
  const e = err as GitbeakerFailure;
  const status = e.cause?.response?.status;
  const headers: Record<string, string> = {};
  e.cause?.response?.headers?.forEach((value, key) => {
    headers[key] = value;
  });
  const failure = forgeFailure(status, headers, Date.now());
  const advice = statusAdvice(status);
  const detail = `GitLab: ${what}: ${status ?? "no answer"} ${e.message ?? String(err)}`;
  return new ForgeError(advice === "" ? detail : `${detail}; ${advice}`, failure, status);
}

/**
 * Gitbeaker's own requester retries a 429 ten times over minutes, blind to `Retry-After`: one
 * try each here, and the delivery queue waits as the forge asks, durably.
 */
const oneTry = createRequesterFn(
  (_, options) => Promise.resolve(options),
  async (endpoint, options = {}) => {
    const { prefixUrl, searchParams, rateLimiters: _r, agent: _a, asStream: _s, ...init } = options;
    const base = String(prefixUrl ?? "");
    const url = new URL(endpoint, base.endsWith("/") ? base : `${base}/`);
    url.search = String(searchParams ?? "");
    const request = new Request(url, init as RequestInit);
    const response = await fetch(request);
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key] = value;
    });
    if (!response.ok) {
      const description = text.slice(0, 300);
      throw new GitbeakerRequestError(description, { cause: { description, request, response } });
    }
    return { body: text === "" ? null : JSON.parse(text), headers, status: response.status };
  },
);

export function gitlabClient(options: { apiUrl: string; token: string }) {
  return new Gitlab({
    host: options.apiUrl,
    token: options.token,
    queryTimeout: 30_000,
    requesterFn: oneTry,
  });
}

/** `fn`, its failure turned into a ForgeError naming `what` was being done. */
export async function gitlabCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw gitlabFailure(what, err);
  }
}
