// The `fetch` settings: a worktree run starts from what the team has on the remote, not from a
// local clone that drifts. Their keys and rules, and the one rule of when a run fetches (asked
// for, or implied by `deliver`).
import * as z from "zod";
import { type DeliverSettings, refName } from "./deliver.js";

export const fetchKeys = {
  fetch: z.boolean(),
  fetch_remote: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, { message: 'the name of a git remote, such as "origin"' }),
  fetch_base: refName("a branch name of the remote"),
};

/** What a run fetches before it starts: the remote, and the branch (absent: the remote's HEAD). */
export interface RunFetch {
  remote: string;
  base?: string;
}

/**
 * Whether a schedule's runs fetch, and what: on when `fetch = true` or `deliver` is set
 * (a pull request is made against the remote, so its work must start from it; a review run
 * fetches the head of its pull request instead). The remote and
 * branch are `fetch_remote`/`fetch_base`, else the pull request's, else "origin" and the
 * remote's HEAD branch.
 */
export function runFetchOf(s: {
  fetch?: boolean;
  fetchRemote?: string;
  fetchBase?: string;
  deliver?: DeliverSettings;
}): RunFetch | undefined {
  const pull = s.deliver?.pullRequest;
  const review = s.deliver?.review;
  if (s.fetch !== true && pull === undefined && review === undefined) return undefined;
  const base = s.fetchBase ?? pull?.base;
  return {
    remote: s.fetchRemote ?? pull?.remote ?? review?.remote ?? "origin",
    ...(base !== undefined && { base }),
  };
}
