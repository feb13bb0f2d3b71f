// The alert about an alert that could not be delivered: what the monitor enqueues from the
// outbox's onDead hook, to every channel but the one that failed.
import type { AlertMessage } from "../alerts/message.js";
import { renderSubject } from "../alerts/render.js";
import type { DeadLetter } from "./record.js";

export function deliveryFailedMessage(
  dead: DeadLetter,
  options: { timezone?: string; inspectCommand?: string } = {},
): AlertMessage {
  const original = dead.message;
  return {
    // One incident per failing channel: a broken webhook is one problem, not one per alert.
    fingerprint: `delivery_failed:${dead.channel}`,
    kind: "delivery_failed",
    status: "firing",
    title: `Alerts to channel "${dead.channel}" cannot be delivered`,
    summary: `An alert was given up on after ${dead.failures + 1} attempt(s): ${dead.error}`,
    ...(original.schedule !== undefined && { schedule: original.schedule }),
    ...(original.runId !== undefined && { runId: original.runId }),
    timezone: options.timezone ?? original.timezone,
    occurredAt: new Date(dead.at).toISOString(),
    journalTail: [],
    commands: { inspect: options.inspectCommand ?? "autoloop-cron status" },
    detail: `The undelivered alert: ${renderSubject(original)} (message id ${dead.messageId}).`,
    failedChannel: dead.channel,
  };
}
