// One attempt at delivering a run: push its commit to the schedule's branch, then open the
// schedule's pull request or update the open one. Each step is safe to repeat after a crash:
// a push already made is seen on the remote, an open pull request is found before one is opened.
import type { Forge, ForgeOptions } from "../forge/forge.js";
import { ForgeError } from "../forge/forge.js";
import { type OwnRepo, openOwnRepo } from "../forge/own-repo.js";
import { type PushOutcome, pushEnvironment, pushRunCommit } from "../forge/push.js";
import { repositoryOfUrl } from "../forge/remote.js";
import { remoteHeadBranch } from "../forge/remote-head.js";
import { resolveSecret } from "../util/secrets.js";
import { FORGE_CLIENTS } from "./forges.js";
import { branchConflict } from "./issue-branch.js";
import { type DeliveryJob, deliveryLane, type PendingDelivery } from "./record.js";

export type AttemptResult =
  | {
      kind: "delivered";
      action: "opened" | "updated";
      number: number;
      url: string;
      warnings: string[];
    }
  | { kind: "retry"; error: string; retryAfterMs?: number }
  | { kind: "dead"; error: string };

export interface AttemptDeps {
  /** What the daemon last pushed to the branch of a lane (record.ts `deliveryLane`). */
  lastPushed(lane: string): string | undefined;
  /** Records the push before the API call: a crash between them is then seen for what it was. */
  onPushed(sha: string): void;
  /** `<state_dir>/git`: the schedules' own repositories (../forge/own-repo.ts). */
  gitDir: string;
  /** Told what the operator should know of a schedule's remote (its URL moved). */
  onNotice?: (schedule: string, notice: string) => void;
  env?: NodeJS.ProcessEnv;
  forges?: Partial<Record<string, (options: ForgeOptions) => Forge>>;
}

function pushProblem(outcome: PushOutcome, branch: string): AttemptResult | undefined {
  if (outcome.kind === "moved")
    return {
      kind: "dead",
      error: `someone else's commit ${outcome.found.slice(0, 12)} is on branch ${branch}, which the daemon does not overwrite: merge or close the pull request and delete the branch, and the next run opens a new one`,
    };
  const conflict = outcome.kind === "failed" ? branchConflict(outcome.detail, branch) : undefined;
  if (conflict !== undefined) return { kind: "dead", error: conflict };
  if (outcome.kind === "failed")
    return outcome.permanent
      ? {
          kind: "dead",
          error: `${outcome.detail}; the remote refused the token, the repository or the commit: check the token is valid and may push there, and what the remote's rules said of the commit`,
        }
      : { kind: "retry", error: outcome.detail };
  return undefined;
}

/** The job's schedule's own repository, what the operator should know of it told. */
export async function ownRepoOf(
  job: { schedule: string; repoDir: string; remote: string },
  deps: Pick<AttemptDeps, "gitDir" | "onNotice">,
): Promise<OwnRepo> {
  const { schedule, repoDir: projectDir, remote } = job;
  const own = await openOwnRepo({ gitDir: deps.gitDir, schedule, projectDir, remote });
  if (own.kind === "ready" && own.notice !== undefined) deps.onNotice?.(schedule, own.notice);
  return own;
}

export async function attemptDelivery(
  entry: PendingDelivery<DeliveryJob>,
  deps: AttemptDeps,
): Promise<AttemptResult> {
  const { job } = entry;
  let token: string;
  try {
    token = resolveSecret(job.token, `schedule "${job.schedule}": deliver.pull_request token`, {
      ...(deps.env !== undefined && { env: deps.env }),
    });
  } catch (err) {
    return { kind: "dead", error: (err as Error).message };
  }
  const own = await ownRepoOf(job, deps);
  if (own.kind === "failed") return { kind: "retry", error: own.detail };
  if (!entry.pushed) {
    const pushed = await pushRunCommit({
      repoDir: job.repoDir,
      ownRepo: own.dir,
      remote: job.remote,
      sha: job.sha,
      branch: job.branch,
      expected: deps.lastPushed(deliveryLane(job)),
      token,
      forge: job.forge,
    });
    const problem = pushProblem(pushed, job.branch);
    if (problem !== undefined) return problem;
    deps.onPushed(job.sha);
  }
  const repository = job.repository ?? repositoryOfUrl(own.url);
  if (repository === undefined)
    return {
      kind: "dead",
      error: `the repository of remote ${job.remote} cannot be read from its URL: set deliver.pull_request.repository = "owner/name"`,
    };
  const base = job.base ?? (await defaultBranch(entry, own.dir, token));
  if (typeof base !== "string") return base;
  const client = (deps.forges?.[job.forge] ?? (await FORGE_CLIENTS[job.forge]()))({
    apiUrl: job.apiUrl,
    repository,
    token,
  });
  return await openOrUpdate(client, entry, base);
}

/**
 * The remote's HEAD branch, for a job that names no base (the daemon fetched none for its run):
 * asked of the remote with the token, as the push is; a remote that names none is a config to fix.
 */
async function defaultBranch(
  entry: PendingDelivery,
  ownRepo: string,
  token: string,
): Promise<string | AttemptResult> {
  const { job } = entry;
  const env = pushEnvironment(job.forge, token);
  const head = await remoteHeadBranch(ownRepo, job.remote, { env });
  if (head.kind === "branch") return head.branch;
  return /names no HEAD/.test(head.detail)
    ? { kind: "dead", error: `${head.detail}: set deliver.pull_request.base` }
    : { kind: "retry", error: head.detail };
}

async function openOrUpdate(
  forge: Forge,
  entry: PendingDelivery<DeliveryJob>,
  base: string,
): Promise<AttemptResult> {
  const { job } = entry;
  const draft = { ...job, head: job.branch, base };
  try {
    const open = await forge.findOpen(job.branch, base);
    if (open !== undefined) {
      const updated = await forge.update(open.number, draft);
      return { kind: "delivered", action: "updated", ...updated };
    }
    const opened = await forge.open(draft);
    return { kind: "delivered", action: "opened", ...opened };
  } catch (err) {
    return forgeErrorResult(err);
  }
}

/** A forge call's failure as the queue takes it: try again (when the forge said), or give up. */
export function forgeErrorResult(err: unknown): AttemptResult {
  if (!(err instanceof ForgeError))
    return { kind: "retry", error: String((err as Error)?.message ?? err) };
  return err.failure.kind === "retry"
    ? {
        kind: "retry",
        error: err.message,
        ...(err.failure.retryAfterMs !== undefined && { retryAfterMs: err.failure.retryAfterMs }),
      }
    : { kind: "dead", error: err.message };
}
