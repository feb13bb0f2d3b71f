// The outbox's background loop: one timer set for the earliest due entry (never more than
// 30 s ahead, so a clock jump costs little), re-armed whenever the outbox changes.

import { after, type Pending, whenDone } from "../../util/timers.js";
import { type AlertLogger, errorText } from "../channels/delivery.js";

export interface WorkerTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: WorkerTimers = {
  // Unref'd: the daemon's own servers keep the process alive; the outbox never should alone.
  // A delay that is not a number (a time that did not parse) sleeps the longest, never spins.
  set: (fn, ms) => (ms === 0 ? whenDone(fn) : after(ms > 0 ? ms : MAX_SLEEP_MS, fn, true)),
  clear: (handle) => (handle as Pending | undefined)?.cancel(),
};

export const MAX_SLEEP_MS = 30_000;

/** What the worker needs from the outbox. */
export interface DueSource {
  deliverDue(now: number): Promise<unknown>;
  nextDueAt(): number | undefined;
  onActivity(listener: () => void): () => void;
}

export class OutboxWorker {
  private timer: unknown;
  private running = false;
  private unsubscribe: (() => void) | undefined;
  private readonly passes = new Set<Promise<unknown>>();

  constructor(
    private readonly source: DueSource,
    private readonly now: () => number,
    private readonly timers: WorkerTimers = realTimers,
    private readonly log?: AlertLogger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.source.onActivity(() => this.reschedule());
    this.reschedule();
  }

  /** Stops the timer and waits for the passes already running. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.clearTimer();
    await Promise.allSettled([...this.passes]);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }

  private reschedule(): void {
    if (!this.running) return;
    this.clearTimer();
    const next = this.source.nextDueAt();
    const delay =
      next === undefined ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, next - this.now()));
    this.timer = this.timers.set(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = undefined;
    if (!this.running) return;
    // Passes overlap safely: the outbox never attempts an entry that is already in flight.
    // Re-armed again once the pass ends: what was in flight is due at the time it set then.
    const pass = this.source
      .deliverDue(this.now())
      .catch((err) => this.log?.error({ error: errorText(err) }, "outbox: delivery pass failed"))
      .finally(() => {
        this.passes.delete(pass);
        this.reschedule();
      });
    this.passes.add(pass);
    this.reschedule();
  }
}
