// The durable alert outbox: each alert is fsynced to outbox.jsonl before any send, retried
// with backoff until delivered or dead, and replayed after a restart (at-least-once).
import { nanoid } from "nanoid";
import { LineAppender } from "../../journal/append.js";
import { HeldLines, type WriteTrouble } from "../../journal/held-lines.js";
import { processRedactor, type Redactor } from "../../util/secrets.js";
import { type AlertMessage, alertMessageSchema, newMessageId } from "../alerts/message.js";
import { redactMessage } from "../alerts/render.js";
import { ChannelSet } from "../channels/channel-set.js";
import {
  type AlertLogger,
  type DeliveryResult,
  errorText,
  silentLogger,
} from "../channels/delivery.js";
import { DEFAULT_BACKOFF } from "./backoff.js";
import { type AttemptOutcome, decideAttempt, type RetryPolicy } from "./decision.js";
import { loadOutboxFile, writeCompactedOutbox } from "./file.js";
import type { OutboxOptions } from "./options.js";
import {
  applyRecord,
  type DeadLetter,
  encodeOutboxRecord,
  type OutboxRecord,
  type OutboxState,
  type PendingEntry,
} from "./record.js";
import { type OutboxStatus, outboxStatus } from "./status.js";
import { OutboxWorker } from "./worker.js";

export type { AttemptOutcome, OutboxOptions };

export interface EnqueuedEntry {
  entryId: string;
  messageId: string;
  channel: string;
}

export class Outbox {
  readonly path: string;
  private readonly channels: ChannelSet;
  private readonly appender: LineAppender;
  private readonly lines: HeldLines;
  private readonly inFlight = new Set<string>();
  private readonly waiters = new Map<string, Array<(o: AttemptOutcome) => void>>();
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  private readonly redactor: Redactor;
  private readonly log: AlertLogger;
  private readonly worker: OutboxWorker;
  private readonly policy: RetryPolicy;
  private deliveredSinceOpen = 0;

  private constructor(
    private readonly options: OutboxOptions,
    private readonly state: OutboxState,
    private bytes: number,
  ) {
    this.path = options.path;
    this.now = options.now ?? Date.now;
    this.redactor = options.redactor ?? processRedactor;
    this.log = options.logger ?? silentLogger;
    // Each line is written at once (a crash of this process loses none) and fsynced right
    // after, off the event loop: a page's request does not wait for the disk.
    this.appender = new LineAppender(options.path, {
      private: true,
      fsync: "deferred",
      onSyncError: (err) => this.log.error({ path: this.path, err }, "outbox: fsync failed"),
    });
    // A record the disk refuses (full) is held and written later; delivery goes on from memory.
    this.lines = new HeldLines((_, line) => this.appender.appendLine(line), {
      trouble: (trouble, dropped) =>
        this.log.error(
          { ...trouble, dropped },
          "outbox: write failed; alerts are still sent, their records held until the disk takes them",
        ),
      recovered: (trouble) => this.log.warn(trouble, "outbox: the held records are written"),
    });
    this.channels = new ChannelSet(options.channels, options.concurrency ?? 2);
    this.policy = {
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      random: options.random ?? Math.random,
      maxAgeMs: options.maxAgeMs ?? 86_400_000,
    };
    this.worker = new OutboxWorker(this, this.now, options.timers, this.log);
  }

  /** Opens (or creates) the outbox file and rebuilds its state; sends nothing yet. */
  static open(options: OutboxOptions): Outbox {
    const loaded = loadOutboxFile(options.path);
    const outbox = new Outbox(options, loaded.state, loaded.bytes);
    if (loaded.skipped > 0) {
      outbox.log.warn({ path: options.path, skipped: loaded.skipped }, "outbox: skipped bad lines");
    }
    return outbox;
  }

  channelNames(): string[] {
    return this.channels.names();
  }

  /**
   * Records `message` for each channel (one shared message id) and returns at once: written
   * now, on disk once `durable()` resolves (whatever records the alert as sent waits for
   * that). Delivery happens in deliverDue() or the started worker. The failed channel of a
   * delivery_failed alert is skipped.
   */
  enqueue(message: AlertMessage, channels: readonly string[], now = this.now()): EnqueuedEntry[] {
    // Validate before writing: a record replay would reject is an alert lost after a restart.
    const safe = redactMessage(alertMessageSchema.parse(message), this.redactor);
    const messageId = newMessageId();
    const at = new Date(now).toISOString();
    const entries: EnqueuedEntry[] = [];
    for (const channel of new Set(channels)) {
      if (channel === message.failedChannel) continue;
      const entryId = nanoid();
      this.append({ type: "enqueued", id: entryId, messageId, channel, at, message: safe });
      entries.push({ entryId, messageId, channel });
    }
    this.notify();
    return entries;
  }

  /** Attempts every entry due at `now` (per-channel concurrency bounded); resolves when done. */
  async deliverDue(now = this.now()): Promise<AttemptOutcome[]> {
    const due = [...this.state.pending.values()]
      .filter((e) => e.nextAt <= now && !this.inFlight.has(e.id))
      .sort((a, b) => a.nextAt - b.nextAt || a.enqueuedAt - b.enqueuedAt);
    this.lines.flush();
    const outcomes = await Promise.all(due.map((e) => this.attempt(e)));
    this.compactIfNeeded(this.now());
    return outcomes;
  }

  /** Epoch ms of the earliest attempt not already running, if any. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const e of this.state.pending.values()) {
      if (!this.inFlight.has(e.id) && (next === undefined || e.nextAt < next)) next = e.nextAt;
    }
    return next;
  }

  /** Resolves with the outcome of the next attempt of this entry. */
  waitForAttempt(entryId: string): Promise<AttemptOutcome> {
    return new Promise((resolve) => {
      const list = this.waiters.get(entryId) ?? [];
      list.push(resolve);
      this.waiters.set(entryId, list);
    });
  }

  /** Subscribes to "something changed" (enqueue, attempt done); returns the unsubscribe. */
  onActivity(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(now = this.now()): OutboxStatus {
    return outboxStatus(this.state, this.inFlight.size, this.deliveredSinceOpen, now);
  }

  /** Starts the background worker (timers injected via options.timers). */
  start(): void {
    this.worker.start();
  }

  /** Stops the worker and waits for sends in flight to settle. */
  async stop(): Promise<void> {
    await this.worker.stop();
  }

  /** Resolves once every record written so far is on disk; rejects while an fsync fails. */
  durable(): Promise<void> {
    return this.appender.durable();
  }

  async close(): Promise<void> {
    await this.stop();
    this.appender.close();
    await this.channels.close();
  }

  /** Rewrites the file with pending entries and recent dead letters only. */
  compact(now = this.now()): void {
    const retention = this.options.deadRetentionMs ?? 7 * 86_400_000;
    const keep = this.state.dead
      .filter((d) => now - d.at <= retention)
      .slice(-(this.options.maxDeadLetters ?? 100));
    this.state.dead = keep;
    // Synchronous from here to the reopen, so no append can land in the replaced file.
    this.bytes = writeCompactedOutbox(this.path, this.state, keep);
    this.lines.clear(); // the state they recorded is in the compacted file
    this.appender.close();
  }

  private compactIfNeeded(now: number): void {
    if (this.bytes > (this.options.compactBytes ?? 1 << 20)) this.compact(now);
  }

  private append(record: OutboxRecord): void {
    const line = encodeOutboxRecord(record);
    this.lines.append(this.path, line);
    this.bytes += Buffer.byteLength(line) + 1;
    applyRecord(this.state, record);
  }

  /** The outbox's writes are failing (records held in memory): since when, and why. */
  writeTrouble(): WriteTrouble | undefined {
    return this.lines.trouble();
  }

  private async attempt(entry: PendingEntry): Promise<AttemptOutcome> {
    this.inFlight.add(entry.id);
    let result: DeliveryResult;
    try {
      result = await this.channels.send({
        entryId: entry.id,
        messageId: entry.messageId,
        channel: entry.channel,
        message: entry.message,
        enqueuedAt: new Date(entry.enqueuedAt).toISOString(),
        attempt: entry.failures + 1,
      });
    } finally {
      this.inFlight.delete(entry.id);
    }
    const outcome = this.settle(entry, result, this.now());
    const waiting = this.waiters.get(entry.id) ?? [];
    this.waiters.delete(entry.id);
    for (const resolve of waiting) resolve(outcome);
    this.options.onAttempt?.(outcome);
    this.notify();
    return outcome;
  }

  /** Records what an attempt came to; reports a dead letter. */
  private settle(entry: PendingEntry, result: DeliveryResult, now: number): AttemptOutcome {
    const attempt = entry.failures + 1;
    const { record, outcome } = decideAttempt(entry, result, now, this.policy, (t) =>
      this.redactor.redact(t),
    );
    this.append(record);
    if (outcome.kind === "delivered") {
      this.deliveredSinceOpen++;
    } else if (outcome.kind === "retrying") {
      const { kind: _, ...fields } = outcome;
      this.log.warn({ ...fields, attempt }, "alert delivery failed; will retry");
    } else {
      const { kind: _, ...fields } = outcome;
      this.log.error(fields, "alert delivery failed permanently");
      // A delivery_failed alert that fails itself is not reported again: that could loop.
      if (entry.message.kind !== "delivery_failed") this.reportDead(this.state.dead.at(-1)!);
    }
    return outcome;
  }

  private reportDead(dead: DeadLetter): void {
    try {
      this.options.onDead?.(dead);
    } catch (err) {
      this.log.error({ error: errorText(err) }, "outbox: onDead hook threw");
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
