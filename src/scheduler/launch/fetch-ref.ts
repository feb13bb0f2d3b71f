// One ref of a remote fetched into this repository's remote-tracking refs (a branch, a pull
// request's head): git by argv, with the user's own git config for credentials, never a
// prompt, and a time limit.
import { runGit } from "../../util/git-run.js";

export type FetchOutcome =
  /** `commit` is what `ref` of the remote held, as just fetched. */
  { kind: "fetched"; commit: string } | { kind: "failed"; detail: string };

/** A fetch that takes longer than this has failed (the next attempt may fare better). */
export const FETCH_TIMEOUT_MS = 120_000;

export async function fetchGit(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  signal?: AbortSignal,
) {
  const r = await runGit(cwd, args, {
    env: { ...env, LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
    timeoutMs,
    ...(signal !== undefined && { signal }),
  });
  const said = r.stderr.split("\n").slice(-3).join(" ");
  const why = r.canceled
    ? "stopped"
    : r.timedOut
      ? `no answer within ${timeoutMs / 1000} s`
      : said || `exit ${r.exitCode}`;
  return { ok: r.ok, stdout: r.stdout, why };
}

/** `ref` (`refs/heads/main`, `refs/pull/7/head`) of `remote` into `refs/remotes/<remote>/...`. */
export async function fetchRef(
  cwd: string,
  remote: string,
  ref: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = FETCH_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<FetchOutcome> {
  const tracking = `refs/remotes/${remote}/${ref.replace(/^refs\/(heads\/)?/, "")}`;
  const args = ["fetch", "--no-tags", "--", remote, `+${ref}:${tracking}`];
  const fetched = await fetchGit(cwd, args, env, timeoutMs, signal);
  if (!fetched.ok)
    return { kind: "failed", detail: `git fetch ${remote} ${ref} failed: ${fetched.why}` };
  const rev = await fetchGit(
    cwd,
    ["rev-parse", "--verify", `${tracking}^{commit}`],
    env,
    timeoutMs,
    signal,
  );
  if (!rev.ok) return { kind: "failed", detail: `${tracking} cannot be read: ${rev.why}` };
  return { kind: "fetched", commit: rev.stdout.trim() };
}
