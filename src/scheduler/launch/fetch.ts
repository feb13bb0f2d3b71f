// Before a worktree run starts: its remote fetched, so the run's tree is made from what the
// team has there, not from a local clone that drifts; a review run's tree from the head of the
// pull request it was fired for. Our code path, not the run's.
import { remoteHeadBranch } from "../../forge/remote-head.js";
import type { RunFetch } from "../config/fetch.js";
import { FETCH_TIMEOUT_MS, fetchRef } from "./fetch-ref.js";
import { checkOutReview } from "./review-checkout.js";
import type { LaunchSpec } from "./spec.js";

export { FETCH_TIMEOUT_MS } from "./fetch-ref.js";

export type FetchOutcome =
  /** `commit` is `<remote>/<branch>` as just fetched. */
  { kind: "fetched"; branch: string; commit: string } | { kind: "failed"; detail: string };

/** Fetches `fetch.base` (or the remote's HEAD branch) of `fetch.remote` into its tracking ref. */
export async function fetchRunBase(
  cwd: string,
  fetch: RunFetch,
  env: NodeJS.ProcessEnv,
  timeoutMs = FETCH_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<FetchOutcome> {
  const { remote } = fetch;
  let branch = fetch.base;
  if (branch === undefined) {
    const head = await remoteHeadBranch(cwd, remote, {
      env: { ...env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
      timeoutMs,
      ...(signal !== undefined && { signal }),
    });
    if (head.kind === "failed")
      return {
        kind: "failed",
        detail: `${head.detail}; set fetch_base to the branch runs start from`,
      };
    branch = head.branch;
  }
  const fetched = await fetchRef(cwd, remote, `refs/heads/${branch}`, env, timeoutMs, signal);
  if (fetched.kind === "failed") return fetched;
  return { kind: "fetched", branch, commit: fetched.commit };
}

/**
 * The spec as launched: a run that fetches starts from what it fetched; `failed` when the
 * fetch did not work (the run does not start: by default a transient failure, retried and
 * paged as one; `stopReason` says when it is not, such as a fork's pull request refused).
 * Aborting `signal` kills git at once (the run was stopped before it started).
 */
export async function fetchedSpec(
  spec: LaunchSpec,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<
  { kind: "ready"; spec: LaunchSpec } | { kind: "failed"; detail: string; stopReason?: string }
> {
  if (spec.kind !== "preset") return { kind: "ready", spec };
  if (spec.review !== undefined) return checkOutReview(spec, spec.review, env, process.env, signal);
  if (spec.fetch === undefined) return { kind: "ready", spec };
  const fetched = await fetchRunBase(spec.cwd, spec.fetch, env, FETCH_TIMEOUT_MS, signal);
  if (fetched.kind === "failed") return fetched;
  return {
    kind: "ready",
    spec: { ...spec, startFrom: { branch: fetched.branch, commit: fetched.commit } },
  };
}
