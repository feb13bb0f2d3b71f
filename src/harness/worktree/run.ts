// A run in worktree isolation: its worktree made before loop.start, and at its end the
// agent's leftovers committed, the branch merged when `worktree.automerge` asks and the run
// completed, the tree removed per `worktree.cleanup`, and older runs' worktrees beyond
// `worktree.keep` removed.
import { dirname, join } from "node:path";
import type { FieldValue } from "../../journal/codec.js";
import type { PresetConfig } from "../preset/schema.js";
import type { RunPaths } from "../run-paths.js";
import { git } from "./git.js";
import { cleanWorktrees, mergeWorktree, pruneWorktrees } from "./merge.js";
import { createWorktree, finishWorktree, type WorktreeMeta, worktreeStartOf } from "./worktree.js";

/**
 * The run's worktree and where in it the agent works (the work dir's place in the repo); made
 * from the commit the scheduler fetched when `env` names one, else from HEAD.
 */
export function startRunWorktree(
  paths: RunPaths,
  runId: string,
  config: PresetConfig,
  env: NodeJS.ProcessEnv,
): { meta: WorktreeMeta; agentDir: string } | undefined {
  if (config.core.isolation_mode !== "worktree") return undefined;
  const meta = createWorktree({
    projectDir: paths.workDir,
    autoloopDir: dirname(paths.journalFile),
    runId,
    branchPrefix: config.worktree.branch_prefix,
    mergeStrategy: config.worktree.merge_strategy,
    start: worktreeStartOf(env),
  });
  // A work dir below the repository's top (a monorepo package) is the same folder in the tree.
  const prefix = git(paths.workDir, ["rev-parse", "--show-prefix"]).stdout.trim();
  return { meta, agentDir: join(meta.worktree_path, prefix) };
}

/** Ends the worktree's side of the run; returns the fields of its `worktree.finish` record. */
export function endRunWorktree(
  paths: RunPaths,
  meta: WorktreeMeta,
  config: PresetConfig,
  completed: boolean,
): Record<string, FieldValue> {
  const autoloopDir = dirname(paths.journalFile);
  const { automerge, cleanup } = config.worktree;
  const fields: Record<string, FieldValue> = { branch: meta.branch, path: meta.worktree_path };
  try {
    finishWorktree(autoloopDir, meta.run_id, completed ? "completed" : "failed");
    fields.status = completed ? "completed" : "failed";
    if (completed && automerge) {
      try {
        const merged = mergeWorktree(paths.workDir, autoloopDir, meta.run_id);
        if (merged.recovered !== undefined) fields.recovered = merged.recovered.join("; ");
        fields.status = "merged";
        fields.merge_strategy = meta.merge_strategy;
      } catch (err) {
        fields.merge_error = err instanceof Error ? err.message : String(err);
      }
    }
    if (fields.status === "merged" && cleanup !== "never") {
      cleanWorktrees(paths.workDir, autoloopDir, { runId: meta.run_id });
      fields.removed = true;
    } else if (cleanup === "always") {
      // The branch keeps the run's commits; only the folder goes.
      fields.removed = git(paths.workDir, ["worktree", "remove", meta.worktree_path]).ok;
    }
    const pruned = pruneWorktrees(paths.workDir, autoloopDir, config.worktree.keep);
    if (pruned.length > 0) fields.pruned = pruned.map((m) => m.run_id).join(",");
  } catch (err) {
    fields.error = err instanceof Error ? err.message : String(err);
  }
  return fields;
}

/** Where the run's changes are now, for its log: a completed run's fix may live on its branch only. */
export function worktreeNote(fields: Record<string, FieldValue>, runId: string): string {
  const notes = [changesNote(fields, runId)];
  if (fields.recovered !== undefined)
    notes.unshift(`worktree: an interrupted merge was settled first: ${String(fields.recovered)}`);
  if (fields.pruned !== undefined)
    notes.push(
      `worktree: removed the worktrees and branches of older runs (worktree.keep): ${String(fields.pruned)}`,
    );
  return notes.join("\n");
}

function changesNote(fields: Record<string, FieldValue>, runId: string): string {
  const branch = String(fields.branch);
  const merge = `\`autoloop worktree merge ${runId}\` (or worktree.automerge = true)`;
  if (fields.status === "merged") return `worktree: branch ${branch} merged into its base`;
  if (fields.merge_error !== undefined)
    return `worktree: automerge failed (${String(fields.merge_error)}); the changes stay on branch ${branch}: ${merge} once that is fixed`;
  if (fields.status === "completed")
    return `worktree: the changes are on branch ${branch} only; bring them in with ${merge}`;
  return `worktree: what the agent did is on branch ${branch} (\`autoloop worktree diff ${runId}\`)`;
}
