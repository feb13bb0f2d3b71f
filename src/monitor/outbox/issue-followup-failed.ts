// The alert about issues that were not told how their run ended (`source`): the tracker refused
// the follow-up (a token, an issue gone) or did not take it for a day. Paged once, when it is
// given up on, through the schedule's channels: the issues keep their working mark, so no later
// slot takes them until a person acts.
import type { AlertMessage } from "../alerts/message.js";

/** A follow-up given up on, as the process that gave up wrote it (./untold-issues.ts). */
export interface UntoldIssues {
  schedule: string;
  runId: string;
  /** The tracker and its repository (team): `github octo/app`. */
  tracker: string;
  /** As people name them: `octo/app#12`, `ENG-12`. */
  issues: string[];
  /** The tracker's status and words, redacted by the writer (it holds the token). */
  error: string;
  /** What a person does: the token to fix, the working mark to take off. */
  fix: string;
  /** ISO time it was given up on. */
  at: string;
}

export function issueFollowupFailedMessage(u: UntoldIssues, timezone: string): AlertMessage {
  const names = u.issues.join(", ");
  const which = u.issues.length === 1 ? `Issue ${names} was` : `Issues ${names} were`;
  return {
    // One incident per schedule: a revoked token fails every run's follow-up the same way.
    fingerprint: `issue_followup_failed:${u.schedule}`,
    kind: "issue_followup_failed",
    status: "firing",
    title: `${which} not updated after run ${u.runId} of schedule "${u.schedule}"`,
    summary: `${names}: ${u.error}`,
    schedule: u.schedule,
    runId: u.runId,
    timezone,
    occurredAt: u.at,
    journalTail: [],
    commands: { inspect: `autoloop-cron runs show ${u.runId}` },
    detail: `${u.tracker} was not told how the run ended, and the working mark stays on ${names}. Fix: ${u.fix}.`,
  };
}
