// A project to deliver from: a repository with a commit on main, its remote `origin` a bare
// repository behind git's smart-HTTP server; and worktree runs in it as the harness leaves them.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { startDeliveries } from "../../src/app/deliveries.js";
import { DeliveryQueue, type DeliveryQueueOptions } from "../../src/delivery/queue.js";
import type { DeliveryJob, DeliveryResult } from "../../src/delivery/record.js";
import { runReview } from "../../src/delivery/run-review.js";
import { createWorktree, finishWorktree } from "../../src/harness/worktree/worktree.js";
import { MonitorService } from "../../src/monitor/service.js";
import type { CronConfig } from "../../src/scheduler/config/config.js";
import { FETCH_TIMEOUT_MS, type FetchPlace } from "../../src/scheduler/launch/fetch-ref.js";
import type { RunOutcome } from "../../src/scheduler/ledger/run-outcome.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";
import { tempDir } from "./cli.js";
import { silentLogger, startDaemon } from "./daemon.js";
import { FakeGitHub } from "./fake-github.js";
import { GIT_ENV, git } from "./git.js";
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

/**
 * A worktree run as the harness leaves one: its commit and report (none without `change`),
 * `text` in it (a default naming the run).
 */
export function worktreeRun(
  project: string,
  runId: string,
  change?: string,
  report = "SIMPLIFY.md",
  text = `# Simplify: ${runId}\n\n- double() multiplies\n`,
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
    writeFileSync(join(meta.worktree_path, report), text);
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

// What the harness leaves of a worktree run, done by a command run: its branch with a commit
// and a report (`report`, its CHECK.md: the text, or a file to copy), its worktree metadata;
// and the environment it was given, to check.
export const worktreeRunScript = (report: string | { file: string }) => `
const { execFileSync: x } = require("node:child_process");
const fs = require("node:fs");
const id = process.env.AUTOLOOP_CRON_RUN_ID;
const dir = ".autoloop/worktrees/" + id;
const tree = require("node:path").resolve(dir, "tree");
x("git", ["worktree", "add", "-q", "-b", "autoloop/" + id, tree, "HEAD"]);
fs.writeFileSync(tree + "/app.js", "changed by " + id + "\\n");
fs.writeFileSync(tree + "/CHECK.md", ${typeof report === "string" ? JSON.stringify(report) : `fs.readFileSync(${JSON.stringify(report.file)}, "utf8")`});
x("git", ["-C", tree, "add", "-A"]);
x("git", ["-C", tree, "commit", "-qm", "run " + id]);
fs.writeFileSync(dir + "/meta.json", JSON.stringify({ run_id: id, branch: "autoloop/" + id,
  worktree_path: tree, base_branch: "main", status: "completed", merge_strategy: "squash",
  created_at: new Date().toISOString(), merged_at: null, removed_at: null }));
fs.writeFileSync("env-" + id + ".json", JSON.stringify(process.env));
`;

export const WORKTREE_RUN_SCRIPT = worktreeRunScript("# Checked the app\n\nAll good.\n");

/**
 * A config folder `dir` for `writeCronConfig` whose `work` checkout has origin octo/app behind
 * git's smart-HTTP server taking `token`, a loopback GitHub, and the `deliver` line to it (the
 * token in GH_TOKEN); `closers` gets what stops the servers.
 */
export async function githubDeliveryWorld(token: string, closers: Array<() => Promise<unknown>>) {
  const dir = tempDir();
  const remotes = join(dir, "remotes");
  git(dir, "init", "--quiet", "--bare", "--initial-branch=main", join(remotes, "octo", "app.git"));
  const gitHttp = await startGitHttp(remotes, token);
  const github = await new FakeGitHub("octo", "app", token).start();
  closers.push(
    () => gitHttp.close(),
    () => github.close(),
  );
  const work = join(dir, "work");
  mkdirSync(work, { recursive: true });
  git(work, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(work, "app.js"), "original\n");
  git(work, "add", "-A");
  git(work, "commit", "--quiet", "-m", "init");
  // The pull request's base: the remote's HEAD branch (the daemon fetched nothing for the run).
  git(work, "push", "--quiet", join(remotes, "octo", "app.git"), "main");
  git(work, "remote", "add", "origin", `${gitHttp.url}/octo/app.git`);
  const deliver = `deliver = { pull_request = { forge = "github", token_env = "GH_TOKEN", api_url = "${github.url}", repository = "octo/app" } }`;
  return { dir, work, github, deliver, gitHttp, remotes };
}

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

/** A pull request job that is never attempted (queue files written by hand or by other writers). */
export function parkedJob(schedule: string, runId: string): DeliveryJob {
  return {
    schedule,
    runId,
    repoDir: "/srv/p",
    sha: "a".repeat(40),
    branch: `autoloop/${schedule}`,
    remote: "origin",
    forge: "github",
    apiUrl: "http://127.0.0.1:9",
    token: { kind: "env", name: "GH_TOKEN" },
    title: "t",
    body: "b",
    draft: false,
    labels: [],
    reviewers: [],
  };
}

/** Where a review checkout in a test fetches: the `git` folder of a state dir under `root`. */
export function fetchPlaceIn(root: string, spec: { schedule: string; cwd: string }): FetchPlace {
  return {
    gitDir: join(root, "state", "git"),
    schedule: spec.schedule,
    projectDir: spec.cwd,
    base: process.env,
    timeoutMs: FETCH_TIMEOUT_MS,
  };
}

/**
 * A daemon on `config` with its deliveries running (and its monitor, with `monitor`), `token` in
 * GH_TOKEN and git's identity in this process's environment; `closers` gets what stops them and
 * puts the environment back.
 */
export async function startDeliveringDaemon(
  config: CronConfig,
  token: string,
  closers: Array<() => Promise<unknown>>,
  options: { logger?: Logger; monitor?: boolean; queue?: Partial<DeliveryQueueOptions> } = {},
) {
  const saved = { ...process.env };
  Object.assign(process.env, GIT_ENV, { GH_TOKEN: token });
  const logger = options.logger ?? silentLogger;
  const daemon = await startDaemon(config, logger);
  const monitor = options.monitor
    ? new MonitorService({ config, logger: silentLogger, daemon })
    : undefined;
  const queue = startDeliveries(daemon, logger, monitor, options.queue);
  closers.push(async () => {
    await daemon.shutdown("terminate", 0);
    await queue.close();
    await monitor?.stop();
    for (const k of ["GH_TOKEN", ...Object.keys(GIT_ENV)]) delete process.env[k];
    Object.assign(process.env, saved);
  });
  return { daemon, queue, monitor };
}
