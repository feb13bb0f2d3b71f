// The daemon's pull request deliveries: a completed worktree run of a schedule with `deliver`
// is queued as it ends; a delivery made goes into the run's ledger, one given up on is paged.
import { join } from "node:path";
import type { Logger } from "pino";
import { DeliveryQueue, type DeliveryQueueOptions } from "../delivery/queue.js";
import { type RunDelivery, runDelivery } from "../delivery/run-delivery.js";
import type { MonitorService } from "../monitor/service.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { DaemonEvents, SchedulerDaemon } from "../scheduler/daemon/daemon.js";

export function deliveriesPath(stateDir: string): string {
  return join(stateDir, "deliveries.jsonl");
}

/** What a schedule with a `source` adds to its deliveries (app/issues.ts). */
export interface DeliveryIssues {
  /** The words closing the issues a run took, for its pull request's body. */
  closes(runId: string): string[];
  /** What the run's delivery came to: queued, or nothing and why. */
  decided(runId: string, delivery: RunDelivery): void;
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
      options.onEnd?.(end);
    },
  });
  const onEnd = ({ schedule: name, runId, outcome }: DaemonEvents["finished"][0]) => {
    const schedule = daemon.schedules.get(name);
    if (schedule?.deliver === undefined) return;
    runDelivery(schedule, runId, outcome, runPageUrl(daemon.config), issues?.closes(runId))
      .then((d) => {
        issues?.decided(runId, d);
        if (d.kind === "deliver") queue.enqueue(d.job);
        else logger.info({ schedule: name, runId }, `no pull request: ${d.why}`);
      })
      .catch((err) =>
        logger.error({ err, schedule: name, runId }, "pull request delivery not queued"),
      );
  };
  // A run that ended while the daemon was down is delivered when the next one starts.
  daemon.on("finished", onEnd);
  daemon.on("recovered", onEnd);
  queue.start();
  return queue;
}

/** A run's page as people reach it, when `[http] public_url` says where that is. */
export function runPageUrl(config: CronConfig): ((runId: string) => string) | undefined {
  const base = config.publicUrl;
  return base === undefined ? undefined : (runId) => `${base}/runs/${encodeURIComponent(runId)}`;
}
