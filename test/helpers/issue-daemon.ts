// An in-process daemon that works from issues: started with its issue follow-ups and its
// deliveries wired as `autoloop-cron start` wires them (src/app/issues.ts).
import { startDeliveries } from "../../src/app/deliveries.js";
import { startIssueFollowUps } from "../../src/app/issues.js";
import type { CronConfig } from "../../src/scheduler/config/config.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { silentLogger, startDaemon } from "./daemon.js";

/** The daemon, and what stops it, its deliveries and its follow-ups. */
export async function startIssueDaemon(
  config: CronConfig,
): Promise<{ daemon: SchedulerDaemon; close: () => Promise<void> }> {
  const daemon = await startDaemon(config);
  const issues = startIssueFollowUps(daemon, silentLogger);
  const queue = startDeliveries(daemon, silentLogger, undefined, {}, issues.forDeliveries);
  issues.attach(queue);
  const close = async () => {
    await daemon.shutdown("terminate", 0);
    await queue.close();
    await issues.followUps.close();
  };
  return { daemon, close };
}
