// Before a worktree run starts: its remote fetched, so the run's tree is made from what the
// team has there, not from a local clone that drifts; a review run's tree from the head of the
// pull request it was fired for. Our code path, not the run's.
import { pushEnvironment } from "../../forge/push.js";
import { remoteHeadBranch } from "../../forge/remote-head.js";
import { resolveSecret } from "../../util/secrets.js";
import type { RunFetch } from "../config/fetch.js";
import { FETCH_TIMEOUT_MS, type FetchPlace, fetchRef, ownRepoFor } from "./fetch-ref.js";
import { checkOutReview } from "./review-checkout.js";
import type { LaunchSpec, PresetLaunch } from "./spec.js";

export { FETCH_TIMEOUT_MS } from "./fetch-ref.js";

export type FetchOutcome =
  /** `commit` is `<remote>/<branch>` as just fetched. */
  { kind: "fetched"; branch: string; commit: string } | { kind: "failed"; detail: string };

/** Fetches `fetch.base` (or the remote's HEAD branch) of `fetch.remote` into its tracking ref. */
export async function fetchRunBase(place: FetchPlace, fetch: RunFetch): Promise<FetchOutcome> {
  const { remote } = fetch;
  const own = await ownRepoFor(place, remote);
  if (own.kind === "failed") return own;
  let branch = fetch.base;
  if (branch === undefined) {
    const { base, timeoutMs, signal } = place;
    const head = await remoteHeadBranch(own.dir, remote, {
      base,
      timeoutMs,
      ...(place.tokenEnv !== undefined && { env: place.tokenEnv }),
      ...(signal !== undefined && { signal }),
    });
    if (head.kind === "failed")
      return {
        kind: "failed",
        detail: `${head.detail}; set fetch_base to the branch runs start from`,
      };
    branch = head.branch;
  }
  const fetched = await fetchRef(place, own.dir, remote, `refs/heads/${branch}`);
  if (fetched.kind === "failed") return fetched;
  return { kind: "fetched", branch, commit: fetched.commit };
}

/**
 * The place with the pull request's token, read from the daemon's own environment (runs never
 * have it); an unreadable one fetches without (the delivery pages about it).
 */
function withToken(place: FetchPlace, spec: PresetLaunch, secretEnv = process.env): FetchPlace {
  if (spec.fetchToken === undefined) return place;
  const { forge, token } = spec.fetchToken;
  try {
    const value = resolveSecret(token, `schedule "${spec.schedule}": deliver.pull_request token`, {
      env: secretEnv,
    });
    return { ...place, tokenEnv: pushEnvironment(forge, value) };
  } catch {
    return place;
  }
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
  onNotice?: (notice: string) => void,
): Promise<
  { kind: "ready"; spec: LaunchSpec } | { kind: "failed"; detail: string; stopReason?: string }
> {
  if (spec.kind !== "preset" || (spec.review === undefined && spec.fetch === undefined))
    return { kind: "ready", spec };
  if (spec.gitDir === undefined)
    return {
      kind: "failed",
      detail: "the run fetches but names no repository of the daemon's own to fetch into",
      stopReason: "config_error",
    };
  const place: FetchPlace = {
    gitDir: spec.gitDir,
    schedule: spec.schedule,
    projectDir: spec.cwd,
    base: env,
    timeoutMs: FETCH_TIMEOUT_MS,
    ...(signal !== undefined && { signal }),
    ...(onNotice !== undefined && { onNotice }),
  };
  if (spec.review !== undefined) return checkOutReview(spec, spec.review, place);
  if (spec.fetch === undefined) return { kind: "ready", spec };
  const fetched = await fetchRunBase(withToken(place, spec), spec.fetch);
  if (fetched.kind === "failed") return fetched;
  return {
    kind: "ready",
    spec: { ...spec, startFrom: { branch: fetched.branch, commit: fetched.commit } },
  };
}
