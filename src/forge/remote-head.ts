// The branch a remote's HEAD points at (its default branch), as `git ls-remote --symref` tells
// it: where a run starts when no branch is named, and what its pull request merges into.
import { runSealedGit, type SealedGitOptions } from "../util/git-run.js";

export type RemoteHead = { kind: "branch"; branch: string } | { kind: "failed"; detail: string };

/** A branch name as git would take one: no "..", "//", leading or trailing "/". */
const BRANCH = /^(?!.*\.\.)(?!.*\/\/)(?!\/)(?!.*\/$)[A-Za-z0-9._/-]+$/;

/** The HEAD branch in `git ls-remote --symref <remote> HEAD`'s output. Pure. */
export function headBranchOf(lsRemote: string): string | undefined {
  const branch = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(lsRemote)?.[1];
  return branch !== undefined && BRANCH.test(branch) ? branch : undefined;
}

export async function remoteHeadBranch(
  cwd: string,
  remote: string,
  options: SealedGitOptions,
): Promise<RemoteHead> {
  const r = await runSealedGit(cwd, ["ls-remote", "--symref", "--", remote, "HEAD"], options);
  if (!r.ok) {
    const why = r.timedOut
      ? `no answer within ${(options.timeoutMs ?? 0) / 1000} s`
      : r.stderr.split("\n").slice(-3).join(" ") || `exit ${r.exitCode}`;
    return { kind: "failed", detail: `git ls-remote ${remote} failed: ${why}` };
  }
  const branch = headBranchOf(r.stdout);
  return branch === undefined
    ? { kind: "failed", detail: `remote ${remote} names no HEAD branch` }
    : { kind: "branch", branch };
}
