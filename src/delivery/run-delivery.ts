// What a finished run gives its schedule's pull request (with `source`, its issue's): nothing
// (no `deliver`, a run that did not complete, no commit), or a delivery job with the run's
// report and facts.
import { readEndRecord } from "../harness/control/end-record.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import type { RunIssues } from "../tracker/run-issues.js";
import { processRedactor } from "../util/secrets.js";
import { deliveryBranch, issueBranchOf } from "./issue-branch.js";
import { pullRequestBody, pullRequestTitle } from "./pull-text.js";
import type { DeliveryJob } from "./record.js";
import { defaultReportName, readRunBranch } from "./run-branch.js";

export type RunDelivery = { kind: "deliver"; job: DeliveryJob } | { kind: "skip"; why: string };

/**
 * `launchedFrom`: the remote's branch the daemon fetched for the run (its ledger's `started`
 * record). The pull request's base is `base`, else that branch, else `fetch_base`, else the
 * remote's HEAD branch, asked when it is delivered: never the branch the run's own worktree
 * metadata names, which the run could point at any branch.
 */
export async function runDelivery(
  schedule: Schedule,
  runId: string,
  outcome: RunOutcome,
  runUrl?: (runId: string) => string | undefined,
  launchedFrom?: string,
  /** The daemon's record of the issues the run took (`source`): their branch, and its closes. */
  taken?: RunIssues,
): Promise<RunDelivery> {
  const pr = schedule.deliver?.pullRequest;
  if (pr === undefined) return { kind: "skip", why: "the schedule delivers nothing" };
  if (outcome.status !== "completed")
    return {
      kind: "skip",
      why: `the run ${outcome.status.replace("_", " ")}: nothing is delivered`,
    };
  const issue = schedule.source === undefined ? undefined : issueBranchOf(taken);
  if (issue?.kind === "none") return { kind: "skip", why: issue.why };
  const closes = issue?.closes ?? [];
  const reportName =
    pr.report ?? defaultReportName(schedule.kind === "preset" ? schedule.preset : schedule.name);
  const branch = await readRunBranch(outcome.journalPath, runId, reportName);
  if (branch.kind === "none") return { kind: "skip", why: branch.why };
  const base = pr.base ?? launchedFrom ?? schedule.fetchBase;
  const url = runUrl?.(runId);
  const facts = {
    schedule: schedule.name,
    runId,
    commits: branch.commits,
    durationMs: outcome.durationMs,
    ...(outcome.spend !== undefined && { costUsd: outcome.spend.costUsd }),
    ...(readIterations(runId, outcome.journalPath) ?? {}),
    ...(url !== undefined && { runUrl: url }),
    ...(closes.length > 0 && { closes }),
  };
  const job: DeliveryJob = {
    schedule: schedule.name,
    runId,
    repoDir: schedule.projectDir,
    sha: branch.sha,
    branch: deliveryBranch(schedule.name, issue?.key),
    ...(issue !== undefined && { issueKey: issue.key }),
    ...(base !== undefined && { base }),
    remote: pr.remote,
    forge: pr.forge,
    apiUrl: pr.apiUrl,
    ...(pr.repository !== undefined && { repository: pr.repository }),
    token: pr.token,
    // The report is the run's text: any secret it quotes is hidden before it leaves.
    title: processRedactor.redact(pullRequestTitle(branch.report, facts)),
    body: processRedactor.redact(pullRequestBody(branch.report, facts, reportName)),
    draft: pr.draft,
    labels: pr.labels,
    reviewers: pr.reviewers,
  };
  return { kind: "deliver", job };
}

function readIterations(runId: string, journalPath: string): { iterations: number } | undefined {
  const end = readEndRecord(runId, journalPath);
  return end === undefined ? undefined : { iterations: end.iterations };
}
