// A project to deliver from: a repository with a commit on main, its remote `origin` a bare
// repository behind git's smart-HTTP server; and worktree runs in it as the harness leaves them.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DeliveryQueue } from "../../src/delivery/queue.js";
import type { DeliveryResult } from "../../src/delivery/record.js";
import { runReview } from "../../src/delivery/run-review.js";
import { createWorktree, finishWorktree } from "../../src/harness/worktree/worktree.js";
import type { RunOutcome } from "../../src/scheduler/ledger/run-outcome.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";
import { tempDir } from "./cli.js";
import { git } from "./git.js";
import { type GitHttpServer, startGitHttp } from "./git-http.js";

export interface DeliveryProject {
  root: string;
  project: string;
  /** The bare repository `origin` serves. */
  bare: string;
  gitHttp: GitHttpServer;
}

/** `owner/name` on a git server that takes `token`. */
export async function deliveryProject(repository: string, token: string): Promise<DeliveryProject> {
  const root = tempDir();
  const bare = join(root, "remotes", `${repository}.git`);
  mkdirSync(join(bare, ".."), { recursive: true });
  git(root, "init", "--quiet", "--bare", "--initial-branch=main", bare);
  const project = join(root, "project");
  mkdirSync(project);
  git(project, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(project, "app.js"), "export const double = (x) => x + x;\n");
  git(project, "add", "-A");
  git(project, "commit", "--quiet", "-m", "init");
  git(project, "push", "--quiet", bare, "main");
  const gitHttp = await startGitHttp(join(root, "remotes"), token);
  git(project, "remote", "add", "origin", `${gitHttp.url}/${repository}.git`);
  return { root, project, bare, gitHttp };
}

/** A worktree run as the harness leaves one: its commit and report (none without `change`). */
export function worktreeRun(
  project: string,
  runId: string,
  change?: string,
  report = "SIMPLIFY.md",
): RunOutcome {
  const autoloopDir = join(project, ".autoloop");
  const meta = createWorktree({
    projectDir: project,
    autoloopDir,
    runId,
    branchPrefix: "autoloop",
    mergeStrategy: "squash",
  });
  if (change !== undefined) {
    writeFileSync(join(meta.worktree_path, "app.js"), change);
    writeFileSync(
      join(meta.worktree_path, report),
      `# Simplify: ${runId}\n\n- double() multiplies\n`,
    );
  }
  finishWorktree(autoloopDir, runId, "completed");
  return {
    status: "completed",
    basis: "journal",
    durationMs: 120_000,
    journalPath: join(autoloopDir, "journal.jsonl"),
    spend: { costUsd: 1.25, tokens: 1000, unpricedIterations: 0 },
  };
}

/** The commit a branch of the bare repository holds ("" when there is no such branch). */
export const remoteHead = (p: DeliveryProject, branch: string) =>
  git(p.bare, "for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`).trim();

/**
 * Two completed review runs of pull request 1 (each leaving a REVIEW.md), each delivered
 * through a queue in `root` at once: how each delivery ended, in order.
 */
export async function reviewTwice(
  root: string,
  project: string,
  schedule: Schedule,
  env: NodeJS.ProcessEnv,
): Promise<Array<DeliveryResult | undefined>> {
  const queue = DeliveryQueue.open({ path: join(root, "deliveries.jsonl"), attempt: { env } });
  const results: Array<DeliveryResult | undefined> = [];
  try {
    for (const runId of ["run-1", "run-2"]) {
      const outcome = worktreeRun(project, runId, `${runId}\n`, "REVIEW.md");
      const d = await runReview(schedule, runId, outcome, 1);
      if (d.kind !== "deliver") throw new Error(d.why);
      queue.enqueue(d.job);
      await queue.deliverDue();
      results.push(queue.result(runId));
    }
  } finally {
    await queue.close();
  }
  return results;
}
