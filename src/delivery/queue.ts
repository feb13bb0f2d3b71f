// The durable queue of pull request deliveries (state_dir/deliveries.jsonl): a run's delivery
// is fsynced before any push, its push recorded before the API call, retried with the outbox's
// backoff until delivered or dead, and replayed after a restart, `kill -9` included. One
// delivery per schedule at a time; a newer run's takes the place of one not yet delivered.
import { dirname, join } from "node:path";
import { type AlertLogger, silentLogger } from "../monitor/channels/delivery.js";
import { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from "../monitor/outbox/backoff.js";
import { OutboxWorker, type WorkerTimers } from "../monitor/outbox/worker.js";
import { formatDuration } from "../util/duration.js";
import { processRedactor } from "../util/secrets.js";
import { type AttemptDeps, type AttemptResult, attemptDelivery } from "./attempt.js";
import {
  appendDeliveryRecords,
  compactDeliveryFile,
  deliveryFileBytes,
  loadDeliveryFile,
} from "./queue-file.js";
import {
  applyDeliveryRecord,
  type DeliveryRecord,
  type DeliveryResult,
  type DeliveryState,
  deliveryLane,
  foldFileState,
  isReviewJob,
  type PendingDelivery,
  type QueuedJob,
} from "./record.js";
import { attemptReview, type ReviewAttemptDeps } from "./review-attempt.js";

/** What a job is, in log lines. */
const whatOf = (job: QueuedJob) => (isReviewJob(job) ? "review" : "pull request delivery");

/** A delivery given up on, or made: what the monitor pages about and the ledger records. */
export interface DeliveryEnd {
  schedule: string;
  runId: string;
  /** A review run's: the pull request it reviewed. */
  review?: number;
  result: Exclude<DeliveryResult, { kind: "pending" } | { kind: "superseded" }>;
}

export interface DeliveryQueueOptions {
  path: string;
  now?: () => number;
  random?: () => number;
  timers?: WorkerTimers;
  logger?: AlertLogger;
  backoff?: BackoffPolicy;
  /** Transient failures for longer than this make the delivery dead (default 24 h). */
  maxAgeMs?: number;
  /** Told once per delivery, when it is made or given up on. */
  onEnd?: (end: DeliveryEnd) => void;
  /**
   * Compact the file when it grows past this (default 1 MiB): jobs hold whole reports. Every
   * writer may: a compaction keeps what the others appended (./queue-file.ts).
   */
  compactBytes?: number;
  /** A daemonless `fire`: what it gives up on is marked for the monitor to page. */
  writer?: "fire";
  /** The forge clients and environment an attempt uses (tests). */
  attempt?: Pick<AttemptDeps, "env" | "forges"> & Pick<ReviewAttemptDeps, "reviewForges">;
  /** The schedules' own repositories; default: `git` beside the queue's file, in the state dir. */
  gitDir?: string;
}

// A forge's "Retry-After: 0" must not turn into a tight loop.
const MIN_RETRY_AFTER_MS = 1_000;

export class DeliveryQueue {
  private readonly busy = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly worker: OutboxWorker;
  private readonly now: () => number;
  private readonly log: AlertLogger;

  private constructor(
    private readonly options: DeliveryQueueOptions,
    private readonly state: DeliveryState,
  ) {
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silentLogger;
    this.worker = new OutboxWorker(this, this.now, options.timers, this.log);
  }

  static open(options: DeliveryQueueOptions): DeliveryQueue {
    const loaded = loadDeliveryFile(options.path);
    const queue = new DeliveryQueue(options, loaded.state);
    if (loaded.skipped > 0)
      queue.log.warn(
        { path: options.path, skipped: loaded.skipped },
        "deliveries: skipped bad lines",
      );
    return queue;
  }

  /** Records the run's delivery (on disk when this returns); an older one pending is superseded. */
  enqueue(job: QueuedJob, now = this.now()): void {
    const at = new Date(now).toISOString();
    const lane = deliveryLane(job);
    for (const older of [...this.state.pending.values()])
      if (deliveryLane(older.job) === lane && older.id !== job.runId)
        this.append({ type: "superseded", id: older.id, at, by: job.runId });
    this.append({ type: "enqueued", id: job.runId, at, job });
    this.notify();
  }

  /** How the run's delivery went, if it had one. */
  result(runId: string): DeliveryResult | undefined {
    return this.state.results.get(runId);
  }

  /** Attempts every delivery due at `now` (of `schedule` only, when given) with none in flight. */
  async deliverDue(now = this.now(), schedule?: string): Promise<void> {
    const due = [...this.state.pending.values()]
      .filter((e) => schedule === undefined || e.job.schedule === schedule)
      .filter((e) => e.nextAt <= now && !this.busy.has(deliveryLane(e.job)))
      .sort((a, b) => a.nextAt - b.nextAt);
    const started = new Set<string>();
    const runs: Promise<void>[] = [];
    for (const e of due) {
      if (started.has(deliveryLane(e.job))) continue;
      started.add(deliveryLane(e.job));
      runs.push(this.attempt(e));
    }
    await Promise.all(runs);
  }

  nextDueAt(schedule?: string): number | undefined {
    let next: number | undefined;
    for (const e of this.state.pending.values()) {
      if (schedule !== undefined && e.job.schedule !== schedule) continue;
      if (!this.busy.has(deliveryLane(e.job)) && (next === undefined || e.nextAt < next))
        next = e.nextAt;
    }
    return next;
  }

  onActivity(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.worker.start();
  }

  async close(): Promise<void> {
    await this.worker.stop();
  }

  private async attempt(entry: PendingDelivery): Promise<void> {
    const lane = deliveryLane(entry.job);
    this.busy.add(lane);
    let result: AttemptResult;
    try {
      result = await this.attemptOf(entry);
    } catch (err) {
      result = { kind: "retry", error: (err as Error)?.message ?? String(err) };
    } finally {
      this.busy.delete(lane);
    }
    // Superseded while in flight: the newer run's delivery decides what the branch shows.
    if (this.state.pending.has(entry.id)) this.settle(entry, result);
    const limit = this.options.compactBytes ?? 1 << 20;
    if (this.busy.size === 0 && deliveryFileBytes(this.options.path) > limit) this.compact();
    this.notify();
  }

  /** The attempt of the entry's kind: a review, or a pull request (with its push). */
  private attemptOf({ job, ...rest }: PendingDelivery): Promise<AttemptResult> {
    const repos = {
      gitDir: this.options.gitDir ?? join(dirname(this.options.path), "git"),
      onNotice: (schedule: string, notice: string) => this.log.warn({ schedule }, notice),
    };
    if (isReviewJob(job))
      return attemptReview({ ...rest, job }, { ...this.options.attempt, ...repos });
    return attemptDelivery(
      { ...rest, job },
      {
        ...this.options.attempt,
        ...repos,
        lastPushed: (s) => this.state.lastPushed.get(s),
        onPushed: (sha) => {
          this.append({ type: "pushed", id: rest.id, at: this.iso(), sha });
          // Superseded while it pushed: its entry is gone, but the branch's lease is this push.
          if (!this.state.pending.has(rest.id))
            this.append({ type: "branch", id: job.schedule, at: this.iso(), sha });
        },
      },
    );
  }

  private settle(entry: PendingDelivery, result: AttemptResult): void {
    const at = this.iso();
    const { schedule } = entry.job;
    if (result.kind === "delivered") {
      const { action, number, url } = result;
      const warnings = result.warnings.map((w) => processRedactor.redact(w));
      const noted = warnings.length > 0 ? { warnings } : {};
      this.append({ type: "delivered", id: entry.id, at, action, number, url, ...noted });
      const what = isReviewJob(entry.job) ? "review" : "pull request";
      this.log.info({ schedule, run: entry.id, url }, `${what} ${action}: ${url}`);
      for (const warning of warnings)
        this.log.warn({ schedule, run: entry.id, url }, `${what} ${action}: ${warning}`);
      const made = { kind: "delivered" as const, action, number, url, ...noted };
      this.options.onEnd?.({ schedule, runId: entry.id, result: made });
      return;
    }
    let error = processRedactor.redact(result.error);
    const failures = entry.failures + 1;
    const age = this.now() - entry.enqueuedAt;
    if (result.kind === "retry" && age < (this.options.maxAgeMs ?? 86_400_000)) {
      const delay =
        result.retryAfterMs !== undefined
          ? Math.max(MIN_RETRY_AFTER_MS, result.retryAfterMs)
          : backoffDelay(
              failures,
              this.options.random ?? Math.random,
              this.options.backoff ?? DEFAULT_BACKOFF,
            );
      const nextAt = new Date(this.now() + delay).toISOString();
      this.append({ type: "attempt", id: entry.id, at, attempt: failures, error, nextAt });
      this.log.warn(
        { schedule, run: entry.id, error, nextAt },
        `${whatOf(entry.job)} failed; retrying`,
      );
      return;
    }
    if (result.kind === "retry")
      error = `gave up after ${formatDuration(age)} and ${failures} attempts; last error: ${error}`;
    const fired = this.options.writer === "fire" ? { by: "fire" as const, schedule } : {};
    this.append({ type: "dead", id: entry.id, at, error, ...fired });
    const review = isReviewJob(entry.job) ? { review: entry.job.number } : {};
    this.log.error({ schedule, run: entry.id, error, ...review }, `${whatOf(entry.job)} given up`);
    this.options.onEnd?.({ schedule, runId: entry.id, ...review, result: { kind: "dead", error } });
  }

  /**
   * Rewrites the file with only what replaying it still needs, other writers' lines included,
   * and takes from it what they did that concerns this queue (`foldFileState`).
   */
  compact(): void {
    foldFileState(this.state, compactDeliveryFile(this.options.path, this.iso()));
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** On disk (fsynced) before the step it announces: a delivery is never lost nor pushed twice unseen. */
  private append(record: DeliveryRecord): void {
    appendDeliveryRecords(this.options.path, [record]);
    applyDeliveryRecord(this.state, record);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
