// Bringing a run's branch into its base branch (squash, merge or rebase), and removing
// worktrees. A merge that conflicts is aborted and changes nothing; the error lists the files.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import { withFileLock } from "../../util/file-lock.js";
import { isProcessAlive } from "../../util/process.js";
import { commitEnv, currentBranch, git, gitOrThrow } from "./git.js";
import { markMerge, mergeMessage, recoverInterruptedMerges } from "./merge-recovery.js";
import {
  listWorktrees,
  type MergeStrategy,
  readMeta,
  statusOf,
  type WorktreeMeta,
  worktreesDir,
  writeMeta,
} from "./worktree.js";

const conflicted = (cwd: string) =>
  git(cwd, ["diff", "--name-only", "--diff-filter=U"]).stdout.trim().split("\n").filter(Boolean);

/**
 * A merge step that failed: a conflict is aborted (`abort`) and named; anything else (an
 * untracked file in the way, a hook, a held index.lock) is reported in git's own words.
 */
function failed(runId: string, cwd: string, how: string, stderr: string, abort: string[]): never {
  const files = conflicted(cwd);
  if (files.length > 0) {
    git(cwd, abort);
    throw new UserError(
      `merging run ${runId} conflicts in ${files.join(", ")}; nothing was changed (${how} aborted). Resolve by hand (git merge or rebase the run's branch), then \`autoloop worktree merge ${runId}\` again`,
    );
  }
  throw new UserError(`merging run ${runId} failed (${how}): ${stderr || "git gave no reason"}`);
}

/** A merged worktree; `recovered` notes the interrupted merges this one settled first. */
export type MergedWorktree = WorktreeMeta & { recovered?: string[] };

/**
 * Merges the run's branch into the branch the project has checked out, which must be its base
 * branch and clean (the harness's own `.autoloop/` is ignored). Merges into one checkout take
 * turns (a lock beside the worktrees), so two runs ending together never undo each other.
 */
export function mergeWorktree(
  projectDir: string,
  autoloopDir: string,
  runId: string,
  strategy?: MergeStrategy,
  now = new Date(),
): MergedWorktree {
  return withFileLock(join(worktreesDir(autoloopDir), "merge"), () =>
    mergeLocked(projectDir, autoloopDir, runId, strategy, now),
  );
}

function mergeLocked(
  projectDir: string,
  autoloopDir: string,
  runId: string,
  strategy: MergeStrategy | undefined,
  now: Date,
): MergedWorktree {
  const recovered = recoverInterruptedMerges(projectDir, autoloopDir);
  const meta = readMeta(autoloopDir, runId);
  const status = statusOf(meta);
  if (status === "merged") throw new UserError(`run ${runId} is already merged`);
  if (status === "running")
    throw new UserError(`run ${runId} is still running; merge it once it has ended`);
  const how = strategy ?? meta.merge_strategy;
  const current = currentBranch(projectDir);
  if (current !== meta.base_branch)
    throw new UserError(
      `run ${runId} branched from ${meta.base_branch}, but the project has ${current || "a detached HEAD"} checked out; \`git switch ${meta.base_branch}\` first`,
    );
  const dirty = git(projectDir, ["status", "--porcelain", "--untracked-files=no"]).stdout.trim();
  if (dirty !== "")
    throw new UserError(
      `the project has uncommitted changes (${dirty.split("\n").length} files); commit or stash them before merging run ${runId}`,
    );
  const env = commitEnv(projectDir);
  const message = mergeMessage(runId, how);
  const head = git(projectDir, ["rev-parse", "HEAD"]).stdout.trim();
  const clearMark = markMerge(autoloopDir, runId, head, how);
  try {
    mergeBranch(projectDir, meta, how, message, env);
  } finally {
    clearMark();
  }
  const merged: WorktreeMeta = { ...meta, status: "merged", merged_at: now.toISOString() };
  writeMeta(autoloopDir, merged);
  return recovered.length > 0 ? { ...merged, recovered } : merged;
}

/** The git side of a merge: squash, merge or rebase; a conflict is aborted and named. */
function mergeBranch(
  projectDir: string,
  meta: WorktreeMeta,
  how: MergeStrategy,
  message: string,
  env: NodeJS.ProcessEnv,
): void {
  const runId = meta.run_id;
  if (how === "squash") {
    const r = git(projectDir, ["merge", "--squash", meta.branch], env);
    if (!r.ok) failed(runId, projectDir, "squash merge", r.stderr, ["reset", "--merge"]);
    // Nothing to commit when the run changed nothing.
    if (!git(projectDir, ["diff", "--cached", "--quiet"]).ok)
      gitOrThrow(projectDir, ["commit", "--no-verify", "-m", message], "committing the merge", env);
  } else if (how === "merge") {
    const r = git(projectDir, ["merge", "--no-ff", "-m", message, meta.branch], env);
    if (!r.ok) failed(runId, projectDir, "merge", r.stderr, ["merge", "--abort"]);
  } else {
    // Rebase the run's commits onto the base in its own worktree, then fast-forward the base.
    const tree = meta.worktree_path;
    if (!existsSync(tree))
      throw new UserError(`the worktree of ${runId} is gone (${tree}); use --strategy squash`);
    const r = git(tree, ["rebase", meta.base_branch], env);
    if (!r.ok) failed(runId, tree, "rebase", r.stderr, ["rebase", "--abort"]);
    gitOrThrow(projectDir, ["merge", "--ff-only", meta.branch], "fast-forwarding", env);
  }
}

/** A removed worktree; `branch_kept` when its branch was not merged and stays. */
export type RemovedWorktree = WorktreeMeta & { branch_kept?: true };

const TERMINAL = new Set(["merged", "failed", "removed"]);

/**
 * Removes worktrees, their branches and metadata: the given run's, or every terminal one
 * (merged, failed, removed, or whose folder is gone); `all` takes completed ones too (never a
 * running one). `force` removes a tree with changes and deletes an unmerged branch. Completed
 * runs stay without `all`: their changes may live on their branch only.
 */
export function cleanWorktrees(
  projectDir: string,
  autoloopDir: string,
  opts: { runId?: string; all?: boolean; force?: boolean } = {},
): RemovedWorktree[] {
  const chosen =
    opts.runId !== undefined
      ? [readMeta(autoloopDir, opts.runId)]
      : listWorktrees(autoloopDir).filter(
          (m) =>
            TERMINAL.has(statusOf(m)) ||
            !existsSync(m.worktree_path) ||
            (opts.all === true && statusOf(m) !== "running"),
        );
  return chosen.map((meta) => removeWorktree(projectDir, autoloopDir, meta, opts.force === true));
}

/**
 * Retention (`worktree.keep`): every ended run but the `keep` newest loses its worktree, branch
 * and metadata, unmerged changes included; running ones stay. 0 keeps every one.
 */
export function pruneWorktrees(
  projectDir: string,
  autoloopDir: string,
  keep: number,
): RemovedWorktree[] {
  if (keep === 0) return [];
  return withFileLock(join(worktreesDir(autoloopDir), "merge"), () => {
    const ended = listWorktrees(autoloopDir)
      .filter((m) => statusOf(m) !== "running" && !stillEnding(m))
      .reverse();
    return ended.slice(keep).map((meta) => removeWorktree(projectDir, autoloopDir, meta, true));
  });
}

/** Another harness still finishing this run (its merge may be under way). */
const stillEnding = (m: WorktreeMeta) =>
  m.pid !== undefined && m.pid !== process.pid && isProcessAlive(m.pid);

function removeWorktree(
  projectDir: string,
  autoloopDir: string,
  meta: WorktreeMeta,
  force: boolean,
): RemovedWorktree {
  if (statusOf(meta) === "running" && !force)
    throw new UserError(
      `run ${meta.run_id} is still running; its worktree stays (--force removes it)`,
    );
  if (existsSync(meta.worktree_path)) {
    const args = ["worktree", "remove", ...(force ? ["--force"] : []), meta.worktree_path];
    gitOrThrow(projectDir, args, `removing the worktree of ${meta.run_id}`);
  }
  git(projectDir, ["worktree", "prune"]);
  const del = git(projectDir, [
    "branch",
    force || meta.status === "merged" ? "-D" : "-d",
    meta.branch,
  ]);
  rmSync(join(worktreesDir(autoloopDir), meta.run_id), { recursive: true, force: true });
  const removed = { ...meta, status: "removed" as const, removed_at: new Date().toISOString() };
  // An unmerged branch stays (`git branch -d` refuses it): it may hold the run's only copy.
  return !del.ok && !/not found/.test(del.stderr) ? { ...removed, branch_kept: true } : removed;
}
