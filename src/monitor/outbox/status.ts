// The outbox at a glance, for `autoloop-cron status`, /metrics and the health check.
import type { AlertKind } from "../alerts/alert-kinds.js";
import type { OutboxState } from "./record.js";

export interface DeadLetterSummary {
  entryId: string;
  messageId: string;
  channel: string;
  kind: AlertKind;
  fingerprint: string;
  error: string;
  /** ISO time it was given up on. */
  at: string;
}

export interface ChannelBacklog {
  backlog: number;
  lastError?: string;
}

export interface OutboxStatus {
  /** Entries neither delivered nor dead (including those in flight). */
  backlog: number;
  inFlight: number;
  oldestPendingAgeMs?: number;
  /** ISO time of the earliest scheduled attempt. */
  nextAttemptAt?: string;
  deliveredSinceOpen: number;
  /** Newest last. */
  deadLetters: DeadLetterSummary[];
  channels: Record<string, ChannelBacklog>;
}

export function outboxStatus(
  state: OutboxState,
  inFlight: number,
  deliveredSinceOpen: number,
  now: number,
): OutboxStatus {
  let oldest: number | undefined;
  let next: number | undefined;
  const channels: Record<string, ChannelBacklog> = {};
  for (const e of state.pending.values()) {
    if (oldest === undefined || e.enqueuedAt < oldest) oldest = e.enqueuedAt;
    if (next === undefined || e.nextAt < next) next = e.nextAt;
    const c = channels[e.channel] ?? { backlog: 0 };
    c.backlog++;
    if (e.lastError !== undefined) c.lastError = e.lastError;
    channels[e.channel] = c;
  }
  return {
    backlog: state.pending.size,
    inFlight,
    ...(oldest !== undefined && { oldestPendingAgeMs: Math.max(0, now - oldest) }),
    ...(next !== undefined && { nextAttemptAt: new Date(next).toISOString() }),
    deliveredSinceOpen,
    deadLetters: state.dead.map((d) => ({
      entryId: d.id,
      messageId: d.messageId,
      channel: d.channel,
      kind: d.message.kind,
      fingerprint: d.message.fingerprint,
      error: d.error,
      at: new Date(d.at).toISOString(),
    })),
    channels,
  };
}
