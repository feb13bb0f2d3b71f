// A merge interrupted part way (its harness killed during `git merge --squash`, or before
// meta.json said merged) is found by the next merge into the same checkout, under the same
// lock, from the marker every merge keeps beside the run's metadata while it works: undone
// when the checkout holds nothing but the merge's own changes, marked merged when its commit
// landed, and reported in git's terms otherwise.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { UserError } from "../../util/errors.js";
import { isProcessAlive } from "../../util/process.js";
import { git } from "./git.js";
import { type MergeStrategy, readMeta, worktreesDir, writeMeta } from "./worktree.js";

interface MergeMarker {
  run_id: string;
  /** The project's HEAD when the merge began. */
  head: string;
  strategy: MergeStrategy;
  pid: number;
  started_at: string;
}

const markerPath = (autoloopDir: string, runId: string) =>
  join(worktreesDir(autoloopDir), runId, "merging.json");

/** The commit message of a run's merge (squash and merge strategies). */
export const mergeMessage = (runId: string, how: MergeStrategy) =>
  `autoloop: merge run ${runId} (${how})`;

/** Marks a merge under way; the returned function clears the mark once it ended either way. */
export function markMerge(
  autoloopDir: string,
  runId: string,
  head: string,
  strategy: MergeStrategy,
): () => void {
  const file = markerPath(autoloopDir, runId);
  const marker: MergeMarker = {
    run_id: runId,
    head,
    strategy,
    pid: process.pid,
    started_at: new Date().toISOString(),
  };
  writeFileAtomic(file, `${JSON.stringify(marker)}\n`);
  return () => rmSync(file, { force: true });
}

/**
 * Settles the merges of this project that a killed process left half done (call under the
 * merge lock); returns a note per merge settled. Throws when one cannot be settled safely.
 */
export function recoverInterruptedMerges(projectDir: string, autoloopDir: string): string[] {
  const notes: string[] = [];
  let names: string[];
  try {
    names = readdirSync(worktreesDir(autoloopDir));
  } catch {
    return notes;
  }
  for (const name of names) {
    const file = markerPath(autoloopDir, name);
    if (!existsSync(file)) continue;
    let marker: MergeMarker;
    try {
      marker = JSON.parse(readFileSync(file, "utf8")) as MergeMarker;
    } catch {
      rmSync(file, { force: true });
      continue;
    }
    if (marker.pid !== process.pid && isProcessAlive(marker.pid)) continue;
    notes.push(settle(projectDir, autoloopDir, name, marker));
    rmSync(file, { force: true });
  }
  return notes;
}

function settle(
  projectDir: string,
  autoloopDir: string,
  runId: string,
  marker: MergeMarker,
): string {
  const meta = readMeta(autoloopDir, runId);
  const head = git(projectDir, ["rev-parse", "HEAD"]).stdout.trim();
  if (head !== marker.head) {
    const subject = git(projectDir, ["log", "-1", "--format=%s"]).stdout.trim();
    const landed =
      subject === mergeMessage(runId, marker.strategy) ||
      (marker.strategy === "rebase" &&
        git(projectDir, ["merge-base", "--is-ancestor", meta.branch, "HEAD"]).ok);
    if (!landed)
      return `run ${runId}: a merge was interrupted, and HEAD has moved since; nothing to undo`;
    writeMeta(autoloopDir, { ...meta, status: "merged", merged_at: new Date().toISOString() });
    return `run ${runId}: its interrupted merge had landed (${head.slice(0, 12)}); marked merged`;
  }
  if (marker.strategy === "rebase") {
    // The rebase runs in the run's own tree; the checkout is touched only by the fast-forward.
    if (existsSync(meta.worktree_path)) git(meta.worktree_path, ["rebase", "--abort"]);
    return `run ${runId}: undid its interrupted rebase`;
  }
  const dirty = lines(git(projectDir, ["diff", "--name-only", "HEAD"]).stdout);
  if (dirty.length === 0) return `run ${runId}: its interrupted merge had changed nothing`;
  const ours = new Set(lines(git(projectDir, ["diff", "--name-only", head, meta.branch]).stdout));
  const others = dirty.filter((f) => !ours.has(f));
  if (others.length > 0)
    throw new UserError(
      `the merge of run ${runId} was interrupted and left changes in the checkout, mixed with changes to ${others.join(", ")}; look at \`git status\`, then \`git reset --merge\` drops the merge's part (or commit it), and merge again`,
    );
  const undo = git(projectDir, ["reset", "--merge"]);
  if (!undo.ok)
    throw new UserError(
      `the merge of run ${runId} was interrupted and cannot be undone (${undo.stderr}); look at \`git status\` in ${projectDir}`,
    );
  return `run ${runId}: undid its interrupted ${marker.strategy} (${dirty.join(", ")}); merge it again with \`autoloop worktree merge ${runId}\``;
}

const lines = (text: string) => text.split("\n").filter(Boolean);
