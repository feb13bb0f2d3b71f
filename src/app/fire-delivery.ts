// `fire` without a daemon (Kubernetes CronJobs, systemd timers) delivers its run too: the run's
// job goes into the daemon's own queue file, and this process attempts the schedule's
// deliveries, waiting out a short retry. What it leaves pending, the schedule's next fire or a
// daemon's start resumes: the same file, the same records.
import type { Logger } from "pino";
import { DeliveryQueue } from "../delivery/queue.js";
import type { DeliveryResult } from "../delivery/record.js";
import type { RunDelivery } from "../delivery/run-delivery.js";
import type { RunReview } from "../delivery/run-review.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import type { RunIssues } from "../tracker/run-issues.js";
import { deliveriesPath, deliveryOfRun, runPageUrl } from "./deliveries.js";

/** How long a fire waits for a retry of its delivery before leaving it to the next one. */
export const FIRE_DELIVERY_PATIENCE_MS = 120_000;

export interface FiredDelivery {
  config: CronConfig;
  ledger: RunLedger;
  schedule: Schedule;
  runId: string;
  outcome: RunOutcome;
  logger: Logger;
  say: (text: string) => void;
  /** The daemon's record of the issues the run took (`source`): its pull request's. */
  taken?: RunIssues;
}

/** What came of a fired run's delivery: its decision, and where the delivery stands. */
export interface FiredOutcome {
  delivery: RunDelivery | RunReview;
  result: DeliveryResult | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export async function deliverFiredRun(f: FiredDelivery): Promise<FiredOutcome | undefined> {
  if (f.schedule.deliver === undefined) return undefined;
  try {
    return await deliver(f);
  } catch (err) {
    // The run is over and recorded: a delivery that cannot even start does not change its end.
    f.say(`${f.runId}: pull request delivery failed: ${(err as Error)?.message ?? String(err)}`);
    return undefined;
  }
}

async function deliver(f: FiredDelivery): Promise<FiredOutcome> {
  const { schedule, runId, say } = f;
  const queue = DeliveryQueue.open({
    path: deliveriesPath(f.config.stateDir),
    logger: f.logger,
    writer: "fire",
    onEnd: (end) => {
      if (end.result.kind === "delivered") {
        f.ledger.delivered(end.runId, end.result.url, end.result.action);
        say(`${end.runId}: pull request ${end.result.action}: ${end.result.url}`);
      } else say(`${end.runId}: pull request not delivered: ${end.result.error}`);
    },
  });
  try {
    const d = await deliveryOfRun(
      f.ledger,
      schedule,
      runId,
      f.outcome,
      runPageUrl(f.config),
      f.taken,
    );
    if (d.kind === "deliver") queue.enqueue(d.job);
    else say(`${runId}: no pull request: ${d.why}`);
    const giveUpAt = Date.now() + FIRE_DELIVERY_PATIENCE_MS;
    for (;;) {
      await queue.deliverDue(Date.now(), schedule.name);
      const next = queue.nextDueAt(schedule.name);
      if (next === undefined) break;
      if (next > giveUpAt) {
        say(
          `${schedule.name}: pull request delivery pending, next attempt at ${new Date(next).toISOString()}: the schedule's next fire or a daemon's start resumes it`,
        );
        break;
      }
      await sleep(next - Date.now());
    }
    return { delivery: d, result: queue.result(runId) };
  } finally {
    await f.ledger.durable();
    await queue.close();
  }
}
