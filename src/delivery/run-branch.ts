// What a finished worktree run leaves to deliver: its branch's commit, how many commits it
// made, the base it started from and its report. Read from the project's repository and the
// run's worktree metadata, which the run could have written: the branch must be the run's own,
// and the report is text, never instructions.
import { basename, dirname } from "node:path";
import { COMMIT_ID, readMeta } from "../harness/worktree/worktree.js";
import { runSealedGit } from "../util/git-run.js";
import { forgeReport } from "./forge-text.js";

export type RunBranch =
  | { kind: "commits"; sha: string; commits: number; startedFrom: string; report?: string }
  | { kind: "none"; why: string };

// Past this the report is cut: a pull request body has a limit anyway.
const MAX_REPORT_BYTES = 256 * 1024;

async function git(repoDir: string, args: string[]) {
  // Sealed: the project's config is the run's to write, and must not run a command here.
  const r = await runSealedGit(repoDir, args, { maxBuffer: MAX_REPORT_BYTES * 2 });
  return { ok: r.ok, out: r.stdout };
}

/** The report's file name when the schedule names none: `SIMPLIFY.md` for preset `simplify`. */
export function defaultReportName(preset: string): string {
  return `${basename(preset).toUpperCase()}.md`;
}

/** The run's branch and what is on it; `none` when there is nothing to deliver, and why. */
export async function readRunBranch(
  journalPath: string,
  runId: string,
  reportName: string,
): Promise<RunBranch> {
  let meta: ReturnType<typeof readMeta>;
  try {
    meta = readMeta(dirname(journalPath), runId);
  } catch (err) {
    return { kind: "none", why: `no worktree: ${(err as Error).message}` };
  }
  // The metadata is the run's file: a branch that is not the run's own is not pushed.
  if (!meta.branch.endsWith(`/${runId}`) || meta.branch.startsWith("-"))
    return { kind: "none", why: `worktree metadata names branch ${meta.branch}, not the run's` };
  const repoDir = dirname(dirname(journalPath));
  const head = await git(repoDir, [
    "rev-parse",
    "--verify",
    "--end-of-options",
    `refs/heads/${meta.branch}^{commit}`,
  ]);
  if (!head.ok) return { kind: "none", why: `branch ${meta.branch} is gone` };
  const sha = head.out.trim();
  // A run that started from a fetched commit counts from it: the local branch may lag behind.
  const from = COMMIT_ID.test(meta.base_commit ?? "")
    ? meta.base_commit!
    : meta.base_branch === "HEAD"
      ? "HEAD"
      : `refs/heads/${meta.base_branch}`;
  const counted = await git(repoDir, ["rev-list", "--count", "--end-of-options", sha, `^${from}`]);
  const commits = counted.ok ? Number(counted.out.trim()) : 0;
  if (!counted.ok) return { kind: "none", why: `its base ${meta.base_branch} cannot be read` };
  if (commits === 0) return { kind: "none", why: "the run made no commit" };
  const report = await readReport(repoDir, `${sha}:${reportName}`, reportName);
  return {
    kind: "commits",
    sha,
    commits,
    startedFrom: meta.base_branch,
    ...(report !== undefined && { report }),
  };
}

/**
 * The report at `spec` as text no forge acts on (the one way it leaves: pull request, review),
 * cut; one too big to read whole says so; undefined when the run wrote none.
 */
async function readReport(repoDir: string, spec: string, name: string) {
  const size = await git(repoDir, ["cat-file", "-s", "--end-of-options", spec]);
  if (!size.ok) return undefined;
  const bytes = Number(size.out.trim());
  if (bytes > MAX_REPORT_BYTES * 2)
    return `_The run's \`${forgeReport(name)}\` is ${bytes} bytes, too long to show here: read it on the branch._\n`;
  const report = await git(repoDir, ["show", "--end-of-options", spec]);
  return report.ok ? forgeReport(report.out.slice(0, MAX_REPORT_BYTES)) : undefined;
}
