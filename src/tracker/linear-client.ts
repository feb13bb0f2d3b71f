// Linear's official client, @linear/sdk, as the daemon sets it up, and what a failed call of it
// means in words a person can act on (a refused key names where the key was read from).
import { LinearClient } from "@linear/sdk";
import type { TrackerSource } from "./tracker.js";

/** What Linear's client says of a failed call, as far as the daemon reads it. */
interface LinearFailure {
  status?: number;
  type?: string;
  message?: string;
}

/** Where the schedule's Linear key comes from, for messages. */
function keyOrigin(source: TrackerSource): string {
  return source.token.kind === "env"
    ? `the variable ${source.token.name} (source.linear_issues.token_env)`
    : `the file ${source.token.path} (source.linear_issues.token_file)`;
}

/** A failed call as an Error naming what was being done, Linear's answer and what to check. */
export function linearFailure(source: TrackerSource, what: string, err: unknown): Error {
  const e = err as LinearFailure;
  const answer = `${e.status ?? "no answer"} ${e.message ?? String(err)}`;
  let advice = "";
  if (e.status === 401 || e.type === "AuthenticationError")
    advice = `the API key was refused: check ${keyOrigin(source)} holds a valid Linear API key`;
  else if (e.status === 403 || e.type === "Forbidden")
    advice = `the API key may not do this: check its permissions and that it can see team ${source.repository}`;
  return new Error(`Linear: ${what}: ${answer}${advice === "" ? "" : `; ${advice}`}`);
}

/** How long one call (a request, or a listing's pages) may take before it fails. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * Runs `fn` with a client of the source's, its failure told as linearFailure. A client per
 * call: the SDK takes one abort signal per client, and each call gets its own deadline.
 */
export function linearCaller(source: TrackerSource, token: string, timeoutMs = CALL_TIMEOUT_MS) {
  return async <T>(what: string, fn: (client: LinearClient) => Promise<T>): Promise<T> => {
    try {
      const signal = AbortSignal.timeout(timeoutMs);
      return await fn(new LinearClient({ apiKey: token, apiUrl: source.apiUrl, signal }));
    } catch (err) {
      throw linearFailure(source, what, err);
    }
  };
}
