// The daemon's pull request deliveries: a completed worktree run of a schedule with `deliver`
// is queued as it ends; a delivery made goes into the run's ledger, one given up on is paged.
import { join } from "node:path";
import type { Logger } from "pino";
import { type DeliveryEnd, DeliveryQueue, type DeliveryQueueOptions } from "../delivery/queue.js";
import { type RunDelivery, runDelivery } from "../delivery/run-delivery.js";
import { type RunReview, runReview } from "../delivery/run-review.js";
import type { MonitorService } from "../monitor/service.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { DaemonEvents, SchedulerDaemon } from "../scheduler/daemon/daemon.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import type { RunIssues } from "../tracker/run-issues.js";

export function deliveriesPath(stateDir: string): string {
  return join(stateDir, "deliveries.jsonl");
}

/** What a schedule with a `source` adds to its deliveries (app/issues.ts). */
export interface DeliveryIssues {
  /** The daemon's record of the issues a run took: its pull request's branch and closes. */
  taken(runId: string): RunIssues | undefined;
  /** What the run's delivery came to: queued, or nothing and why. */
  decided(runId: string, delivery: RunDelivery | RunReview): void;
  /** Its delivery was made or given up on: the issues are told now. */
  ended(end: DeliveryEnd): void;
}

export function startDeliveries(
  daemon: SchedulerDaemon,
  logger: Logger,
  monitor: MonitorService | undefined,
  options: Partial<DeliveryQueueOptions> = {},
  issues?: DeliveryIssues,
): DeliveryQueue {
  const queue = DeliveryQueue.open({
    path: deliveriesPath(daemon.config.stateDir),
    logger,
    ...options,
    onEnd: (end) => {
      if (end.result.kind === "delivered")
        daemon.ledger.delivered(end.runId, end.result.url, end.result.action);
      else monitor?.pageUndelivered({ ...end, error: end.result.error, at: Date.now() });
      issues?.ended(end);
      options.onEnd?.(end);
    },
  });
  const onEnd = ({ schedule: name, runId, outcome }: DaemonEvents["finished"][0]) => {
    const schedule = daemon.schedules.get(name);
    if (schedule?.deliver === undefined) return;
    // Tells the issues the run took (`source`) what came of its delivery.
    const delivery = deliveryOfRun(
      daemon.ledger,
      schedule,
      runId,
      outcome,
      runPageUrl(daemon.config),
      issues?.taken(runId),
    ).then((d) => {
      issues?.decided(runId, d);
      return d;
    });
    delivery
      .then((d) => {
        if (d.kind === "deliver") queue.enqueue(d.job);
        else logger.info({ schedule: name, runId }, `nothing delivered: ${d.why}`);
      })
      .catch((err) => {
        logger.error({ err, schedule: name, runId }, "delivery not queued");
        // Its issues are given back: the work did not reach a pull request.
        const error = `not queued: ${(err as Error)?.message ?? String(err)}`;
        issues?.ended({ schedule: name, runId, result: { kind: "dead", error } });
      });
  };
  // A run that ended while the daemon was down is delivered when the next one starts.
  daemon.on("finished", onEnd);
  daemon.on("recovered", onEnd);
  queue.start();
  return queue;
}

/**
 * What a finished run delivers, for the daemon and `fire` alike: a review run (fired for a pull
 * request) its review, any other run its branch as the schedule's pull request (with `source`,
 * the pull request of the issues it took), based on the branch the daemon fetched for it.
 */
export function deliveryOfRun(
  ledger: RunLedger,
  schedule: Schedule,
  runId: string,
  outcome: RunOutcome,
  url: ((runId: string) => string) | undefined,
  taken?: RunIssues,
): Promise<RunDelivery | RunReview> {
  const started = startedRecord(ledger, runId);
  return started.review !== undefined
    ? runReview(schedule, runId, outcome, started.review, url)
    : runDelivery(schedule, runId, outcome, url, started.from, taken);
}

/**
 * What the daemon recorded as it launched the run: the branch it fetched for it, and the pull
 * request a review run checked out.
 */
function startedRecord(ledger: RunLedger, runId: string): { from?: string; review?: number } {
  const started = ledger.replay(runId)?.events.findLast((e) => e.event === "started");
  if (started?.event !== "started") return {};
  const from = started.from?.branch;
  return {
    ...(typeof from === "string" && { from }),
    ...(Number.isSafeInteger(started.review) && { review: started.review }),
  };
}

/** A run's page as people reach it, when `[http] public_url` says where that is. */
export function runPageUrl(config: CronConfig): ((runId: string) => string) | undefined {
  const base = config.publicUrl;
  return base === undefined ? undefined : (runId) => `${base}/runs/${encodeURIComponent(runId)}`;
}
