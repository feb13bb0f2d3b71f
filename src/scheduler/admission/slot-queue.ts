// Slots waiting for their schedule's run or for max_concurrent_runs, oldest first, with a
// per-schedule count so the limit check is O(1) when a thousand slots queue at once.
import type { HookDelivery } from "../hooks/delivery.js";
import type { Trigger } from "../ledger/events.js";

export interface WaitingSlot {
  schedule: string;
  slot: Date;
  trigger: Trigger;
  /** When the slot was meant to start, for its lateness once it launches. */
  dueAt: number;
  /** The webhook delivery that fired it (trigger "hook"). */
  hook?: HookDelivery;
  /** The pull request a review run checks out (`fire --set pr=<n>`). */
  pullRequest?: number;
}

/** Slots one schedule may have waiting; more are skipped. */
export const QUEUE_LIMIT = 10;

export class SlotQueue {
  private slots: WaitingSlot[] = [];
  private readonly counts = new Map<string, number>();

  count(schedule: string): number {
    return this.counts.get(schedule) ?? 0;
  }

  isFull(schedule: string): boolean {
    return this.count(schedule) >= QUEUE_LIMIT;
  }

  push(w: WaitingSlot): void {
    this.slots.push(w);
    this.counts.set(w.schedule, this.count(w.schedule) + 1);
  }

  /** Puts a slot first: the one a "replace" is waiting to launch. */
  unshift(w: WaitingSlot): void {
    this.slots.unshift(w);
    this.counts.set(w.schedule, this.count(w.schedule) + 1);
  }

  /**
   * Walks the slots oldest first: `visit` takes a slot out ("take"), leaves it in its place
   * ("keep") or ends the walk ("stop", the slot stays). The slots after the stop are not
   * touched, so a run's end with a thousand slots waiting costs one slot, not a thousand.
   */
  sweep(visit: (w: WaitingSlot) => "take" | "keep" | "stop"): void {
    const kept: WaitingSlot[] = [];
    let i = 0;
    for (; i < this.slots.length; i++) {
      const w = this.slots[i]!;
      const verdict = visit(w);
      if (verdict === "stop") break;
      if (verdict === "keep") kept.push(w);
      else this.counts.set(w.schedule, this.count(w.schedule) - 1);
    }
    if (kept.length < i) this.slots = kept.concat(this.slots.slice(i));
  }
}
