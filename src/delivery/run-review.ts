// What a finished review run gives the pull request it was fired for: nothing (no
// `deliver.review`, a run that did not complete, no report), or a review job with its report.
import { readEndRecord } from "../harness/control/end-record.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { processRedactor } from "../util/secrets.js";
import type { ReviewJob } from "./record.js";
import { reviewBody } from "./review-text.js";
import { defaultReportName, readRunBranch } from "./run-branch.js";

export type RunReview = { kind: "deliver"; job: ReviewJob } | { kind: "skip"; why: string };

/** `number`: the pull request the daemon checked out for the run (its ledger's `started`). */
export async function runReview(
  schedule: Schedule,
  runId: string,
  outcome: RunOutcome,
  number: number,
  runUrl?: (runId: string) => string | undefined,
): Promise<RunReview> {
  const review = schedule.deliver?.review;
  if (review === undefined) return { kind: "skip", why: "the schedule posts no review" };
  if (outcome.status !== "completed")
    return {
      kind: "skip",
      why: `the run ${outcome.status.replace("_", " ")}: no review is posted`,
    };
  const reportName =
    review.report ??
    defaultReportName(schedule.kind === "preset" ? schedule.preset : schedule.name);
  const branch = await readRunBranch(outcome.journalPath, runId, reportName);
  const report = branch.kind === "commits" ? branch.report : undefined;
  if (report === undefined || report.trim() === "")
    return { kind: "skip", why: `the run left no ${reportName} on its branch` };
  const url = runUrl?.(runId);
  const end = readEndRecord(runId, outcome.journalPath);
  const facts = {
    schedule: schedule.name,
    runId,
    commits: branch.kind === "commits" ? branch.commits : 0,
    durationMs: outcome.durationMs,
    ...(outcome.spend !== undefined && { costUsd: outcome.spend.costUsd }),
    ...(end !== undefined && { iterations: end.iterations }),
    ...(url !== undefined && { runUrl: url }),
  };
  const job: ReviewJob = {
    kind: "review",
    schedule: schedule.name,
    runId,
    repoDir: schedule.projectDir,
    remote: review.remote,
    forge: review.forge,
    apiUrl: review.apiUrl,
    ...(review.repository !== undefined && { repository: review.repository }),
    token: review.token,
    number,
    // The report is the run's text: any secret it quotes is hidden before it leaves.
    body: processRedactor.redact(reviewBody(report, facts, reportName)),
  };
  return { kind: "deliver", job };
}
