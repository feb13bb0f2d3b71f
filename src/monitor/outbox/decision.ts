// What one attempt's result means for its outbox entry: the line to record and the outcome
// to report. Pure: time, randomness and redaction are arguments.

import { formatDuration } from "../../util/duration.js";
import type { DeliveryResult } from "../channels/delivery.js";
import { type BackoffPolicy, backoffDelay } from "./backoff.js";
import type { OutboxRecord, PendingEntry } from "./record.js";

export type AttemptOutcome =
  | { kind: "delivered"; entryId: string; messageId: string; channel: string; response: string }
  | {
      kind: "retrying";
      entryId: string;
      messageId: string;
      channel: string;
      error: string;
      /** Epoch ms of the next attempt. */
      nextAt: number;
    }
  | { kind: "dead"; entryId: string; messageId: string; channel: string; error: string };

export interface RetryPolicy {
  backoff: BackoffPolicy;
  random: () => number;
  /** Transient failures for longer than this since enqueue make the entry dead. */
  maxAgeMs: number;
}

// A receiver's "Retry-After: 0" must not turn into a tight loop.
const MIN_RETRY_AFTER_MS = 1_000;

export function decideAttempt(
  entry: PendingEntry,
  result: DeliveryResult,
  now: number,
  policy: RetryPolicy,
  redact: (text: string) => string,
): { record: OutboxRecord; outcome: AttemptOutcome } {
  const ids = { entryId: entry.id, messageId: entry.messageId, channel: entry.channel };
  const at = new Date(now).toISOString();
  if (result.kind === "delivered") {
    return {
      record: { type: "delivered", id: entry.id, at, response: result.response },
      outcome: { kind: "delivered", ...ids, response: result.response },
    };
  }
  let error = redact(result.error);
  const failures = entry.failures + 1;
  const age = now - entry.enqueuedAt;
  if (result.kind === "retry" && age < policy.maxAgeMs) {
    const delay =
      result.retryAfterMs !== undefined
        ? Math.max(MIN_RETRY_AFTER_MS, result.retryAfterMs)
        : backoffDelay(failures, policy.random, policy.backoff);
    const nextAt = now + delay;
    return {
      record: {
        type: "attempt",
        id: entry.id,
        at,
        attempt: failures,
        error,
        nextAt: new Date(nextAt).toISOString(),
      },
      outcome: { kind: "retrying", ...ids, error, nextAt },
    };
  }
  if (result.kind === "retry") {
    error = `gave up after ${formatDuration(age)} and ${failures} attempts; last error: ${error}`;
  }
  return {
    record: { type: "dead", id: entry.id, at, error },
    outcome: { kind: "dead", ...ids, error },
  };
}
