// `autoloop-cron alert test [channel]`: a test alert through the same outbox path as real
// alerts, answered with what the receiver said on the first attempt.

import { UserError } from "../../util/errors.js";
import { testAlertMessage } from "../alerts/message.js";
import type { AttemptOutcome, Outbox } from "./outbox.js";

/**
 * Enqueues a test alert for one channel (or all) and resolves with each channel's first
 * attempt. An entry that failed transiently stays in the outbox and is retried like any alert.
 */
export async function sendTestAlert(
  outbox: Outbox,
  channelName?: string,
  options: { now?: number; timezone?: string } = {},
): Promise<AttemptOutcome[]> {
  const names = outbox.channelNames();
  if (channelName !== undefined && !names.includes(channelName)) {
    throw new UserError(
      `no channel named "${channelName}"; configured channels: ${names.join(", ") || "none"}`,
    );
  }
  const now = options.now ?? Date.now();
  const message = testAlertMessage(new Date(now), options.timezone);
  const entries = outbox.enqueue(message, channelName ? [channelName] : names, now);
  const outcomes = Promise.all(entries.map((e) => outbox.waitForAttempt(e.entryId)));
  // Drives the send itself, so this works without a started worker; with one running, the
  // outbox still attempts each entry only once at a time. A failing pass rejects here.
  const [results] = await Promise.all([outcomes, outbox.deliverDue(now)]);
  return results;
}
