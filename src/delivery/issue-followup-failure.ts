// What a failed issue follow-up comes to: tried again when the tracker may answer later (5xx,
// 429, a rate limit, the network), or given up at once when it will not until a person acts (a
// refused token, an issue gone), read as the delivery queue reads a forge's answer
// (forge/failure.ts). And, given up, what a person does about it. Pure.
import { ForgeError } from "../forge/forge.js";
import type { UntoldIssues } from "../monitor/outbox/issue-followup-failed.js";
import type { RunIssues } from "../tracker/run-issues.js";
import type { TrackerSource } from "../tracker/tracker.js";
import { SecretError } from "../util/secrets.js";

export type FollowUpFailure =
  | { kind: "retry"; retryAfterMs?: number }
  /** The tracker's status, when it answered; none: the token could not even be read. */
  | { kind: "refused"; status?: number };

export function followUpFailure(err: unknown): FollowUpFailure {
  if (err instanceof SecretError) return { kind: "refused" };
  if (!(err instanceof ForgeError)) return { kind: "retry" };
  if (err.failure.kind === "permanent")
    return { kind: "refused", ...(err.status !== undefined && { status: err.status }) };
  const wait = err.failure.retryAfterMs;
  return { kind: "retry", ...(wait !== undefined && { retryAfterMs: wait }) };
}

/** The issues as people name them across repositories: `octo/app#12`, `ENG-12`. */
export function issueNames(source: TrackerSource, refs: readonly string[]): string[] {
  return refs.map((ref) => (source.kind === "linear" ? ref : `${source.repository}${ref}`));
}

/** Where the schedule's tracker token comes from, as its config says. */
function tokenPlace(source: TrackerSource): string {
  return source.token.kind === "env"
    ? `the environment variable ${source.token.name}`
    : `the file ${source.token.path}`;
}

/** The token's part of the fix, for a refusal that names the token (or none). */
function tokenFix(source: TrackerSource, failure: FollowUpFailure, issues: string): string {
  if (failure.kind !== "refused") return "";
  const place = tokenPlace(source);
  switch (failure.status) {
    case undefined:
      return `make the token readable in ${place}`;
    case 401:
      return `replace the token in ${place} (${source.kind} refused it)`;
    case 403:
      return `give the token in ${place} write access to the issues of ${source.repository}`;
    case 404:
      return `check ${issues} still exists and the token in ${place} can see it`;
    default:
      return "";
  }
}

/**
 * What a person does about a follow-up given up on: the token to fix, when the tracker refused
 * it, then the working mark to take off by hand, so a later slot takes the issues again.
 */
export function givenUpFix(
  source: TrackerSource,
  refs: readonly string[],
  failure: FollowUpFailure,
): string {
  const issues = issueNames(source, refs).join(", ");
  const mark =
    source.workingLabel !== undefined
      ? `remove the label "${source.workingLabel}" from ${issues} by hand`
      : `move ${issues} out of "${source.workingState}" by hand`;
  const token = tokenFix(source, failure, issues);
  const then = `${mark}, so that a later slot takes ${refs.length === 1 ? "it" : "them"} again`;
  return token === "" ? then : `${token}, then ${then}`;
}

/** The record of a run's follow-up given up on `now`, which the monitor pages. */
export function untoldIssues(
  entry: RunIssues,
  error: string,
  failure: FollowUpFailure,
  now: number,
): UntoldIssues {
  const refs = entry.issues.map((i) => i.ref);
  return {
    schedule: entry.schedule,
    runId: entry.runId,
    tracker: `${entry.source.kind} ${entry.source.repository}`,
    issues: issueNames(entry.source, refs),
    error,
    fix: givenUpFix(entry.source, refs, failure),
    at: new Date(now).toISOString(),
  };
}
