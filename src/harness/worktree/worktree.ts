// Worktree isolation: a run's own git worktree at `.autoloop/worktrees/<run-id>/tree` on branch
// `autoloop/<run-id>`, where its agent works, with `meta.json` beside it (the public autoloop's
// fields). The run's journal, tasks and memory stay in the project's `.autoloop/`, where the
// scheduler and the monitor look for them.
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { UserError } from "../../util/errors.js";
import { isProcessAlive } from "../../util/process.js";
import { readSmallRegularFile } from "../../util/untrusted-file.js";
import { commitEnv, currentBranch, git, gitOrThrow } from "./git.js";

export const MERGE_STRATEGIES = ["squash", "merge", "rebase"] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];
export type WorktreeStatus = "running" | "completed" | "failed" | "merged" | "removed";

/** `meta.json`, as the public autoloop writes it. */
export interface WorktreeMeta {
  run_id: string;
  branch: string;
  worktree_path: string;
  base_branch: string;
  status: WorktreeStatus;
  merge_strategy: MergeStrategy;
  created_at: string;
  merged_at: string | null;
  removed_at: string | null;
  /**
   * Our extension: the harness's pid, so a dead "running" one reads as failed and no other
   * run's retention removes a worktree whose harness is still ending it.
   */
  pid?: number;
  /**
   * Our extension: the commit the worktree was made from when the scheduler fetched it
   * (`base_branch` is then the remote's branch, which the local one may lag behind).
   */
  base_commit?: string;
}

/** A full commit id (SHA-1 or SHA-256). */
export const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Where a run's worktree starts when not from HEAD: a commit the scheduler fetched. */
export interface WorktreeStart {
  branch: string;
  commit: string;
}

/**
 * The start the scheduler asks for (AUTOLOOP_WORKTREE_FROM, a full commit id, and
 * AUTOLOOP_WORKTREE_BASE, the remote's branch it came from); undefined when it asks none.
 */
export function worktreeStartOf(env: NodeJS.ProcessEnv): WorktreeStart | undefined {
  const commit = env.AUTOLOOP_WORKTREE_FROM;
  const branch = env.AUTOLOOP_WORKTREE_BASE;
  if (!commit || !branch) return undefined;
  if (!COMMIT_ID.test(commit))
    throw new UserError(
      `AUTOLOOP_WORKTREE_FROM is ${JSON.stringify(commit)}, not a full commit id; unset it, or set it to the commit the run's worktree starts from`,
    );
  return { branch, commit };
}

/** The status as things are: a "running" worktree whose harness is gone ended badly. */
export function statusOf(meta: WorktreeMeta): WorktreeStatus {
  if (meta.status !== "running" || meta.pid === undefined) return meta.status;
  return isProcessAlive(meta.pid) ? "running" : "failed";
}

/** `.autoloop/worktrees` of a project (next to its journal). */
export function worktreesDir(autoloopDir: string): string {
  return join(autoloopDir, "worktrees");
}

export function metaPath(autoloopDir: string, runId: string): string {
  return join(worktreesDir(autoloopDir), runId, "meta.json");
}

export function writeMeta(autoloopDir: string, meta: WorktreeMeta): void {
  writeFileAtomic(metaPath(autoloopDir, meta.run_id), `${JSON.stringify(meta, null, 2)}\n`);
}

/** Metadata is a few hundred bytes; past this the file is not the harness's. */
const MAX_META_BYTES = 64 * 1024;

export function readMeta(autoloopDir: string, runId: string): WorktreeMeta {
  // Used as a folder name: one plain path segment, nothing that climbs out.
  if (runId === "" || runId === "." || runId === ".." || basename(runId) !== runId)
    throw new UserError(`${JSON.stringify(runId)} is not a run id (letters, digits, . _ -)`);
  const file = metaPath(autoloopDir, runId);
  // The run's file, read by the daemon too: never through a link, never waiting on a FIFO.
  const text = readSmallRegularFile(file, MAX_META_BYTES);
  if (text === undefined)
    throw new UserError(
      `no worktree for run ${JSON.stringify(runId)} (${file} is missing, not a regular file or past ${MAX_META_BYTES} bytes); \`autoloop worktree list\` shows them`,
    );
  let meta: WorktreeMeta;
  try {
    meta = JSON.parse(text) as WorktreeMeta;
  } catch (err) {
    throw new UserError(`${file}: unreadable worktree metadata (${String(err)})`);
  }
  // The folder names the run: a file that says otherwise is not trusted with paths.
  if (
    meta.run_id !== runId ||
    typeof meta.branch !== "string" ||
    typeof meta.worktree_path !== "string"
  )
    throw new UserError(
      `${file}: worktree metadata for another run or incomplete; remove the folder`,
    );
  return meta;
}

/** Every worktree of the project, oldest first; unreadable metadata is skipped. */
export function listWorktrees(autoloopDir: string): WorktreeMeta[] {
  let names: string[];
  try {
    names = readdirSync(worktreesDir(autoloopDir));
  } catch {
    return [];
  }
  const metas: WorktreeMeta[] = [];
  for (const name of names) {
    try {
      metas.push(readMeta(autoloopDir, name));
    } catch {
      // A folder without metadata is not a worktree of ours.
    }
  }
  return metas.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** The repository's top folder, or a clear error when `projectDir` is not in one with a commit. */
function repositoryOf(projectDir: string): string {
  const top = git(projectDir, ["rev-parse", "--show-toplevel"]);
  const head = git(projectDir, ["rev-parse", "--verify", "HEAD"]);
  if (!top.ok || !head.ok) {
    throw new UserError(
      `worktree isolation needs a git repository with at least one commit, and ${projectDir} is not one (${top.ok ? "no commit yet" : top.stderr}); run \`git init && git commit --allow-empty -m init\` there, or run without --worktree`,
    );
  }
  return top.stdout.trim();
}

/** Creates the run's worktree and branch from the current HEAD; returns its metadata. */
export function createWorktree(opts: {
  projectDir: string;
  autoloopDir: string;
  runId: string;
  branchPrefix: string;
  mergeStrategy: MergeStrategy;
  /** Absent: the project's HEAD. */
  start?: WorktreeStart | undefined;
  now?: Date;
}): WorktreeMeta {
  const { projectDir, autoloopDir, runId, start } = opts;
  repositoryOf(projectDir);
  const baseBranch = start?.branch ?? (currentBranch(projectDir) || "HEAD");
  const branch = `${opts.branchPrefix}/${runId}`;
  const tree = join(worktreesDir(autoloopDir), runId, "tree");
  mkdirSync(join(worktreesDir(autoloopDir), runId), { recursive: true });
  const from = start?.commit ?? "HEAD";
  gitOrThrow(projectDir, ["worktree", "add", "-b", branch, tree, from], "creating the worktree");
  const meta: WorktreeMeta = {
    run_id: runId,
    branch,
    worktree_path: tree,
    base_branch: baseBranch,
    status: "running",
    merge_strategy: opts.mergeStrategy,
    created_at: (opts.now ?? new Date()).toISOString(),
    merged_at: null,
    removed_at: null,
    pid: process.pid,
    ...(start !== undefined && { base_commit: start.commit }),
  };
  writeMeta(autoloopDir, meta);
  return meta;
}

/**
 * Ends the run's side of the worktree: what the agent left uncommitted is committed on the
 * run's branch (so diff and merge see all of it), and the status becomes completed or failed.
 */
export function finishWorktree(
  autoloopDir: string,
  runId: string,
  outcome: "completed" | "failed",
): WorktreeMeta {
  const meta = readMeta(autoloopDir, runId);
  if (existsSync(meta.worktree_path)) {
    gitOrThrow(meta.worktree_path, ["add", "-A"], "staging the run's changes");
    const staged = git(meta.worktree_path, ["diff", "--cached", "--quiet"]);
    if (!staged.ok) {
      gitOrThrow(
        meta.worktree_path,
        ["commit", "--no-verify", "-m", `autoloop: changes left by run ${runId}`],
        "committing the run's changes",
        commitEnv(meta.worktree_path),
      );
    }
  }
  // The pid stays: while the harness lives, its end (a merge, retention) is not done yet.
  const done: WorktreeMeta = { ...meta, status: outcome };
  writeMeta(autoloopDir, done);
  return done;
}

/** The run's changes against its base: committed on its branch, as a patch. */
export function worktreeDiff(autoloopDir: string, runId: string, stat = false): string {
  const meta = readMeta(autoloopDir, runId);
  const repo = existsSync(meta.worktree_path) ? meta.worktree_path : undefined;
  if (repo === undefined)
    throw new UserError(
      `the worktree of ${runId} is gone (${meta.worktree_path}); nothing to diff`,
    );
  const range = `${meta.base_commit ?? meta.base_branch}...${meta.branch}`;
  return gitOrThrow(repo, ["diff", ...(stat ? ["--stat"] : []), range], "diffing the run");
}
