// What a channel is and what one delivery attempt can come to; the outbox decides what
// happens next (done, try again later, give up) from this outcome alone.
import type { AlertMessage } from "../alerts/message.js";

export type DeliveryResult =
  /** The receiver accepted it; `response` is its answer (SMTP reply, HTTP status, exit). */
  | { kind: "delivered"; response: string }
  /** A transient failure; `retryAfterMs` when the receiver said when to come back. */
  | { kind: "retry"; error: string; retryAfterMs?: number }
  /** Retrying cannot help (rejected, bad config): the entry becomes a dead letter. */
  | { kind: "permanent"; error: string };

/** One outbox entry as a channel sees it. */
export interface OutboxDelivery {
  entryId: string;
  /** Shared by every channel and every retry of this alert: receivers dedupe on it. */
  messageId: string;
  channel: string;
  message: AlertMessage;
  /** ISO time the entry was enqueued. */
  enqueuedAt: string;
  /** 1 for the first attempt. */
  attempt: number;
}

export interface AlertChannel {
  readonly name: string;
  readonly type: string;
  send(delivery: OutboxDelivery): Promise<DeliveryResult>;
  /** Releases connections; pending sends may fail. */
  close(): Promise<void>;
}

/** The pino-compatible slice of a logger the alerts code uses. */
export interface AlertLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: AlertLogger = { info() {}, warn() {}, error() {} };

/** A channel whose config is unusable (e.g. a missing secret): every send is a dead letter. */
export function brokenChannel(name: string, type: string, problem: string): AlertChannel {
  return {
    name,
    type,
    send: async () => ({ kind: "permanent", error: problem }),
    close: async () => {},
  };
}

/** An error's message, or its string form for thrown non-errors. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
