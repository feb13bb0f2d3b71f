// One ref of a remote fetched for a run (a branch, a pull request's head): into the schedule's
// own repository first, from the URL recorded there, then from it into the project's
// remote-tracking refs by path; git by argv, sealed, never a prompt, and a time limit. The
// project's config, which its runs write, never picks where git goes or what it runs.
import { fetchLocal, openOwnRepo } from "../../forge/own-repo.js";
import { type GitRun, runSealedGit } from "../../util/git-run.js";

export type FetchOutcome =
  /** `commit` is what `ref` of the remote held, as just fetched. */
  { kind: "fetched"; commit: string } | { kind: "failed"; detail: string };

/** A fetch that takes longer than this has failed (the next attempt may fare better). */
export const FETCH_TIMEOUT_MS = 120_000;

/** Where and how a run's fetch runs. */
export interface FetchPlace {
  /** `<state_dir>/git`: the schedules' own repositories. */
  gitDir: string;
  schedule: string;
  projectDir: string;
  /** The daemon's environment (the operator's PATH, HOME, ssh agent, proxies). */
  base: NodeJS.ProcessEnv;
  /** The token's config variables, when the fetch carries one (`../../forge/push.ts`). */
  tokenEnv?: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told what the operator should know (the project's remote URL moved). */
  onNotice?: (notice: string) => void;
}

/** Why a git failed, in a few words. */
export function whyFailed(r: GitRun, timeoutMs: number): string {
  if (r.canceled) return "stopped";
  if (r.timedOut) return `no answer within ${timeoutMs / 1000} s`;
  return r.stderr.split("\n").slice(-3).join(" ") || `exit ${r.exitCode}`;
}

/** The schedule's own repository with `remote`'s URL recorded, or why there is none. */
export async function ownRepoFor(place: FetchPlace, remote: string) {
  const { gitDir, schedule, projectDir } = place;
  const own = await openOwnRepo({ gitDir, schedule, projectDir, remote });
  if (own.kind === "ready" && own.notice !== undefined) place.onNotice?.(own.notice);
  return own;
}

/** `ref` (`refs/heads/main`, `refs/pull/7/head`) of `remote` into `refs/remotes/<remote>/...`. */
export async function fetchRef(
  place: FetchPlace,
  ownRepo: string,
  remote: string,
  ref: string,
): Promise<FetchOutcome> {
  const { timeoutMs, signal } = place;
  const options = {
    base: place.base,
    timeoutMs,
    ...(place.tokenEnv !== undefined && { env: place.tokenEnv }),
    ...(signal !== undefined && { signal }),
  };
  const tracking = `refs/remotes/${remote}/${ref.replace(/^refs\/(heads\/)?/, "")}`;
  const args = ["fetch", "--quiet", "--no-tags", "--no-recurse-submodules"];
  const fetched = await runSealedGit(
    ownRepo,
    [...args, "--", remote, `+${ref}:${tracking}`],
    options,
  );
  if (!fetched.ok)
    return {
      kind: "failed",
      detail: `git fetch ${remote} ${ref} failed: ${whyFailed(fetched, timeoutMs)}`,
    };
  const rev = await runSealedGit(
    ownRepo,
    ["rev-parse", "--verify", `${tracking}^{commit}`],
    options,
  );
  if (!rev.ok)
    return { kind: "failed", detail: `${tracking} cannot be read: ${whyFailed(rev, timeoutMs)}` };
  const commit = rev.stdout.trim();
  const { env: _, ...local } = options;
  const handed = await fetchLocal(place.projectDir, ownRepo, commit, tracking, local);
  if (!handed.ok)
    return {
      kind: "failed",
      detail: `${commit} could not be fetched into ${place.projectDir}: ${whyFailed(handed, timeoutMs)}`,
    };
  return { kind: "fetched", commit };
}
