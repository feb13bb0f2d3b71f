// The daemon's issue follow-ups wired to its run ends and its pull request deliveries: a run
// that took issues tells them how it ended, once its pull request (if it delivers one) was
// made; the pull request's body closes them.
import type { Logger } from "pino";
import {
  endAfterDelivery,
  type IssueFollowUpOptions,
  IssueFollowUps,
} from "../delivery/issue-followups.js";
import type { DeliveryQueue } from "../delivery/queue.js";
import type { DaemonEvents, SchedulerDaemon } from "../scheduler/daemon/daemon.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import { type IssueEnd, readRunIssues } from "../tracker/run-issues.js";
import { type DeliveryIssues, runPageUrl } from "./deliveries.js";

/** A run's end as its issues are told: the status and the harness's stop reason, no agent text. */
export function issueEndOf(outcome: RunOutcome): IssueEnd {
  if (outcome.status === "completed") return { kind: "completed" };
  return {
    kind: "failed",
    status: outcome.status,
    ...(outcome.stopReason !== undefined && { detail: outcome.stopReason }),
  };
}

export interface IssueWiring {
  followUps: IssueFollowUps;
  /** What the pull request deliveries ask of the runs' issues (pass to startDeliveries). */
  forDeliveries: DeliveryIssues;
  /** Hears of the deliveries (their queue exists after this wiring). */
  attach(deliveries: DeliveryQueue): void;
}

export function startIssueFollowUps(
  daemon: SchedulerDaemon,
  logger: Logger,
  options: Partial<IssueFollowUpOptions> = {},
): IssueWiring {
  const { stateDir } = daemon.config;
  let deliveries: DeliveryQueue | undefined;
  const followUps = new IssueFollowUps({
    stateDir,
    logger,
    runUrl: runPageUrl(daemon.config),
    pullRequestOf: (runId) => deliveries?.result(runId),
    runInLedger: (runId) => daemon.ledger.summary(runId),
    ...options,
  });
  const onEnd = ({ schedule, runId, outcome }: DaemonEvents["finished"][0]) => {
    const entry = readRunIssues(stateDir, runId);
    // A completed run with a pull request to deliver waits for the delivery's word.
    if (outcome.status === "completed" && daemon.schedules.get(schedule)?.deliver !== undefined)
      return followUps.decidingDelivery(runId);
    followUps.ended(runId, entry, issueEndOf(outcome));
  };
  daemon.on("finished", onEnd);
  daemon.on("recovered", onEnd);
  followUps.start();
  return {
    followUps,
    forDeliveries: {
      taken: (runId) => readRunIssues(stateDir, runId),
      decided: (runId, d) => {
        const entry = readRunIssues(stateDir, runId);
        if (d.kind === "deliver") followUps.ended(runId, entry, "awaiting");
        else followUps.ended(runId, entry, { kind: "completed", note: d.why });
      },
      ended: ({ runId, result }) =>
        followUps.ended(
          runId,
          readRunIssues(stateDir, runId),
          endAfterDelivery(result) ?? "awaiting",
        ),
    },
    attach: (queue) => {
      deliveries = queue;
      queue.onActivity(() => followUps.notify());
    },
  };
}
