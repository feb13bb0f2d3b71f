// The alert about a run whose commits could not be delivered as its schedule's pull request,
// or whose review could not be posted on the pull request it reviewed: paged once, when the
// delivery is given up on, through the schedule's channels.
import type { AlertMessage } from "../alerts/message.js";

export interface UndeliveredRun {
  schedule: string;
  runId: string;
  error: string;
  /** A review run's: the pull request whose review was not posted. */
  review?: number;
  /** Epoch ms it was given up on. */
  at: number;
}

export function pullRequestFailedMessage(u: UndeliveredRun, timezone: string): AlertMessage {
  const n = u.review;
  const what =
    n === undefined
      ? {
          kind: "pull_request_failed" as const,
          title: `The pull request of schedule "${u.schedule}" was not delivered`,
          detail: `The run's commits stay on its branch in the project (\`autoloop worktree diff ${u.runId}\`); the next run of the schedule with changes tries again.`,
        }
      : {
          kind: "review_failed" as const,
          title: `The review of pull request #${n} by schedule "${u.schedule}" was not posted`,
          detail: `The run's report stays in its project; the next review run of pull request #${n} posts again.`,
        };
  return {
    // One incident per schedule and kind: a revoked token fails every run the same way.
    fingerprint: `${what.kind}:${u.schedule}`,
    kind: what.kind,
    status: "firing",
    title: what.title,
    summary: u.error,
    schedule: u.schedule,
    runId: u.runId,
    timezone,
    occurredAt: new Date(u.at).toISOString(),
    journalTail: [],
    commands: { inspect: `autoloop-cron runs show ${u.runId}` },
    detail: what.detail,
  };
}
