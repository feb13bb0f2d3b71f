// Before a worktree run starts: its remote fetched, so the run's tree is made from what the
// team has there, not from a local clone that drifts. Our code path, not the run's: git by
// argv, with the user's own git config for credentials, never a prompt, and a time limit.
import { remoteHeadBranch } from "../../forge/remote-head.js";
import { runGit } from "../../util/git-run.js";
import type { RunFetch } from "../config/fetch.js";
import type { LaunchSpec } from "./spec.js";

export type FetchOutcome =
  /** `commit` is `<remote>/<branch>` as just fetched. */
  { kind: "fetched"; branch: string; commit: string } | { kind: "failed"; detail: string };

/** A fetch that takes longer than this has failed (the next attempt may fare better). */
export const FETCH_TIMEOUT_MS = 120_000;

async function git(cwd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  const r = await runGit(cwd, args, {
    env: { ...env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
    timeoutMs,
  });
  const said = r.stderr.split("\n").slice(-3).join(" ");
  const why = r.timedOut ? `no answer within ${timeoutMs / 1000} s` : said || `exit ${r.exitCode}`;
  return { ok: r.ok, stdout: r.stdout, why };
}

/** Fetches `fetch.base` (or the remote's HEAD branch) of `fetch.remote` into its tracking ref. */
export async function fetchRunBase(
  cwd: string,
  fetch: RunFetch,
  env: NodeJS.ProcessEnv,
  timeoutMs = FETCH_TIMEOUT_MS,
): Promise<FetchOutcome> {
  const { remote } = fetch;
  let branch = fetch.base;
  if (branch === undefined) {
    const head = await remoteHeadBranch(cwd, remote, {
      env: { ...env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
      timeoutMs,
    });
    if (head.kind === "failed")
      return {
        kind: "failed",
        detail: `${head.detail}; set fetch_base to the branch runs start from`,
      };
    branch = head.branch;
  }
  const tracking = `refs/remotes/${remote}/${branch}`;
  const args = ["fetch", "--no-tags", "--", remote, `+refs/heads/${branch}:${tracking}`];
  const fetched = await git(cwd, args, env, timeoutMs);
  if (!fetched.ok)
    return { kind: "failed", detail: `git fetch ${remote} ${branch} failed: ${fetched.why}` };
  const rev = await git(cwd, ["rev-parse", "--verify", `${tracking}^{commit}`], env, timeoutMs);
  if (!rev.ok) return { kind: "failed", detail: `${tracking} cannot be read: ${rev.why}` };
  return { kind: "fetched", branch, commit: rev.stdout.trim() };
}

/**
 * The spec as launched: a run that fetches starts from what it fetched; `failed` when the
 * fetch did not work (the run does not start: a transient failure, retried and paged as one).
 */
export async function fetchedSpec(
  spec: LaunchSpec,
  env: NodeJS.ProcessEnv,
): Promise<{ kind: "ready"; spec: LaunchSpec } | { kind: "failed"; detail: string }> {
  if (spec.kind !== "preset" || spec.fetch === undefined) return { kind: "ready", spec };
  const fetched = await fetchRunBase(spec.cwd, spec.fetch, env);
  if (fetched.kind === "failed") return fetched;
  return {
    kind: "ready",
    spec: { ...spec, startFrom: { branch: fetched.branch, commit: fetched.commit } },
  };
}
