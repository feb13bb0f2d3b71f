// The daemon's pull request deliveries: a completed worktree run of a schedule with `deliver`
// is queued as it ends; a delivery made goes into the run's ledger, one given up on is paged.
import { join } from "node:path";
import type { Logger } from "pino";
import { DeliveryQueue, type DeliveryQueueOptions } from "../delivery/queue.js";
import { runDelivery } from "../delivery/run-delivery.js";
import type { MonitorService } from "../monitor/service.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { DaemonEvents, SchedulerDaemon } from "../scheduler/daemon/daemon.js";

export function deliveriesPath(stateDir: string): string {
  return join(stateDir, "deliveries.jsonl");
}

export function startDeliveries(
  daemon: SchedulerDaemon,
  logger: Logger,
  monitor: MonitorService | undefined,
  options: Partial<DeliveryQueueOptions> = {},
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
    runDelivery(schedule, runId, outcome, runPageUrl(daemon.config), launchedFrom(daemon, runId))
      .then((d) => {
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

/** The branch the daemon fetched for the run, as its ledger's `started` record keeps it. */
function launchedFrom(daemon: SchedulerDaemon, runId: string): string | undefined {
  const started = daemon.ledger.replay(runId)?.events.findLast((e) => e.event === "started");
  const branch = started?.event === "started" ? started.from?.branch : undefined;
  return typeof branch === "string" ? branch : undefined;
}

/** A run's page as people reach it, when `[http] public_url` says where that is. */
function runPageUrl(config: CronConfig): ((runId: string) => string) | undefined {
  const base = config.publicUrl;
  return base === undefined ? undefined : (runId) => `${base}/runs/${encodeURIComponent(runId)}`;
}
