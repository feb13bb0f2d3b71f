// How an outbox is set up: its file, its channels, the injected clock, randomness and timers,
// and the retry and retention limits (defaults in the comments).

import type { Redactor } from "../../util/secrets.js";
import type { AlertChannel, AlertLogger } from "../channels/delivery.js";
import type { BackoffPolicy } from "./backoff.js";
import type { AttemptOutcome } from "./decision.js";
import type { DeadLetter } from "./record.js";
import type { WorkerTimers } from "./worker.js";

export interface OutboxOptions {
  /** `<state_dir>/outbox.jsonl`. */
  path: string;
  /** The outbox owns them: close() closes them. */
  channels: readonly AlertChannel[];
  now?: () => number;
  random?: () => number;
  timers?: WorkerTimers;
  logger?: AlertLogger;
  redactor?: Redactor;
  backoff?: BackoffPolicy;
  /** Transient failures for longer than this make the entry dead (default 24 h). */
  maxAgeMs?: number;
  /** Sends in flight per channel (default 2). */
  concurrency?: number;
  /** Compact when the file grows past this (default 1 MiB). */
  compactBytes?: number;
  /** Dead letters kept by compaction: at most this many (default 100)... */
  maxDeadLetters?: number;
  /** ...and none older than this (default 7 days). */
  deadRetentionMs?: number;
  /** Called once per dead letter, except for delivery_failed alerts (they would loop). */
  onDead?: (dead: DeadLetter) => void;
  /** Called after every delivery attempt (for metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}
