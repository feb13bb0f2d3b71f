// The alert about a run whose commits could not be delivered as its schedule's pull request:
// paged once, when the delivery is given up on, through the schedule's channels.
import type { AlertMessage } from "../alerts/message.js";

export interface UndeliveredRun {
  schedule: string;
  runId: string;
  error: string;
  /** Epoch ms it was given up on. */
  at: number;
}

export function pullRequestFailedMessage(u: UndeliveredRun, timezone: string): AlertMessage {
  return {
    // One incident per schedule: a revoked token fails every run the same way.
    fingerprint: `pull_request_failed:${u.schedule}`,
    kind: "pull_request_failed",
    status: "firing",
    title: `The pull request of schedule "${u.schedule}" was not delivered`,
    summary: u.error,
    schedule: u.schedule,
    runId: u.runId,
    timezone,
    occurredAt: new Date(u.at).toISOString(),
    journalTail: [],
    commands: { inspect: `autoloop-cron runs show ${u.runId}` },
    detail: `The run's commits stay on its branch in the project (\`autoloop worktree diff ${u.runId}\`); the next run of the schedule with changes tries again.`,
  };
}
