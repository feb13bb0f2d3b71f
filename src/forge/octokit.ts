// GitHub's official client as the daemon sets it up (pull requests and issues alike), and what
// a failed call of it means: retry (when, if GitHub said) or give up until a person acts.
import { Octokit } from "@octokit/rest";
import { forgeFailure, statusAdvice } from "./failure.js";
import { ForgeError } from "./forge.js";

/** Octokit's RequestError, as far as the daemon reads it. */
interface RequestFailure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

/** A failed call as a ForgeError: the status, GitHub's message and what to do about it. */
export function githubFailure(what: string, err: unknown): ForgeError {
  const e = err as RequestFailure;
  const status = typeof e.status === "number" ? e.status : undefined;
  const failure = forgeFailure(status, e.response?.headers ?? {}, Date.now());
  const advice = statusAdvice(status);
  const detail = `GitHub: ${what}: ${status ?? "no answer"} ${e.message ?? String(err)}`;
  return new ForgeError(advice === "" ? detail : `${detail}; ${advice}`, failure, status);
}

export function octokitFor(options: { apiUrl: string; token: string }): Octokit {
  return new Octokit({
    auth: options.token,
    baseUrl: options.apiUrl,
    userAgent: "autoloop-cron",
    request: { timeout: 30_000 },
    // Its own log prints failed requests to the console; the daemon logs them itself.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

/** `fn`, its failure turned into a ForgeError naming `what` was being done. */
export async function githubCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw githubFailure(what, err);
  }
}
