// The one timer behind every schedule: pending fires handed out an instant at a time, woken at
// most every 30 s to notice clock jumps and suspends, reporting slots as due or (when woken
// late) missed.

import { InstantQueue } from "./instant-queue.js";
import { fireTimeOf } from "./jitter.js";
import { nextFireTime, type PlanSpec } from "./planner.js";

/**
 * A long sleep ends late by the kernel's timer slack (about 0.1% of it): the queue wakes this
 * share of the sleep early (at most 100 ms), then sleeps the rest with a short timer.
 */
const EARLY_SHARE = 1 / 500;

export interface FireQueueDeps {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface FireQueueOptions {
  /** Longest single sleep, so wall-clock jumps and suspends are noticed. Default 30 s. */
  maxSleepMs?: number;
  /** A fire this late (or a wake-up this far off) counts as missed / a clock jump. Default 2 s. */
  lateAfterMs?: number;
  /** Receives errors thrown by the event handler; default: rethrown outside the queue. */
  onHandlerError?: (err: unknown) => void;
  /** Told after each wake-up that fired slots: how many, and how long the pass held the loop. */
  onPass?: (slots: number, ms: number) => void;
}

/** One schedule's slot in a `due` event; `slot` in epoch milliseconds. */
export interface DueSlot {
  readonly name: string;
  readonly slot: number;
}

export type FireEvent =
  /** A fire time arrived and the queue woke on time: launch the slots due then, in name
   * order. A thousand schedules on one second are one event, decided as one batch. */
  | { kind: "due"; slots: readonly DueSlot[]; fireAt: Date; lateness: number }
  /** The queue woke late (suspend, clock jump, blocked loop): slots of this schedule up to
   * `until` passed unlaunched, `slot` the first of them. Apply the catch-up policy. */
  | { kind: "missed"; name: string; slot: Date; fireAt: Date; lateness: number; until: Date }
  /** The wall clock moved against the timers: `ms` > 0 forward, < 0 backward (every
   * schedule is then planned again from the new time). */
  | { kind: "clock-jump"; ms: number; at: Date };

interface Entry {
  fireAt: number;
  slot: number;
  name: string;
}

interface ScheduleState {
  spec: PlanSpec;
  generation: number;
  /** Slots at or before this instant were emitted or handed to catch-up; never fire again. */
  handledUntil: number;
  next: Entry | undefined;
}

/** Real clock and timers, looked up at call time so test fake timers apply. */
export const realClock: FireQueueDeps = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class FireQueue {
  private readonly instants = new InstantQueue<Entry>();
  // Kept after removal so a reloaded schedule does not refire slots it already fired.
  private readonly states = new Map<string, ScheduleState>();
  private timer: unknown;
  private armedFor: number | undefined;
  private expectedWake: number | undefined;
  private running = false;
  private stale = 0;
  private readonly maxSleepMs: number;
  private readonly lateAfterMs: number;

  constructor(
    private readonly onEvent: (event: FireEvent) => void,
    private readonly deps: FireQueueDeps = realClock,
    private readonly options: FireQueueOptions = {},
  ) {
    this.maxSleepMs = options.maxSleepMs ?? 30_000;
    this.lateAfterMs = options.lateAfterMs ?? 2_000;
  }

  /**
   * Adds or replaces a schedule. Its next fire is the first slot whose fire time is still
   * ahead; earlier slots (any after `lastSlot`) are the caller's catch-up.
   */
  upsert(spec: PlanSpec, lastSlot?: Date): void {
    const handledUntil = lastSlot?.getTime() ?? -Infinity;
    const state: ScheduleState = { spec, generation: 1, handledUntil, next: undefined };
    const old = this.states.get(spec.name);
    if (old !== undefined) {
      state.handledUntil = Math.max(old.handledUntil, handledUntil);
      state.generation = old.generation + 1;
    }
    this.states.set(spec.name, state);
    // After the set: a compaction it starts then drops the replaced entry too.
    if (old?.next !== undefined) this.dropped();
    this.enqueueFromNow(state, this.deps.now());
    if (this.running) this.arm();
  }

  /** Stops firing a schedule; its stale heap entry is skipped when it comes up. */
  remove(name: string): void {
    const state = this.states.get(name);
    if (state === undefined) return;
    state.generation++;
    const had = state.next !== undefined;
    state.next = undefined;
    if (had) this.dropped(); // after: a compaction it starts then drops that entry too
  }

  /** Counts a heap entry made stale; compacts when stale entries outnumber live ones, so
   * frequent reloads of many schedules do not grow the heap without bound. */
  private dropped(): void {
    if (++this.stale < 1024 || this.stale < this.instants.size / 2) return;
    this.instants.retain((e) => this.states.get(e.name)?.next === e);
    this.stale = 0;
  }

  /** The pending fire of a schedule, for status output. */
  pending(name: string): { slot: Date; fireAt: Date } | undefined {
    const next = this.states.get(name)?.next;
    return next && { slot: new Date(next.slot), fireAt: new Date(next.fireAt) };
  }

  /** Number of schedules with a pending fire. */
  get size(): number {
    let n = 0;
    for (const state of this.states.values()) if (state.next !== undefined) n++;
    return n;
  }

  start(): void {
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    this.disarm();
  }

  /**
   * The wall clock stepped back: every schedule is planned again from `now`, so slots it
   * already fired come round again. Which of them run again is the ledger's call (a slot
   * runs once, unless the daemon lets a frequent schedule repeat it).
   */
  private replan(now: number): void {
    for (const state of this.states.values()) {
      if (state.next === undefined) continue; // removed, or no slot left
      state.next = undefined;
      this.dropped();
      state.handledUntil = Number.NEGATIVE_INFINITY;
      this.enqueueFromNow(state, now);
    }
  }

  /** Queues the first slot after `handledUntil` whose fire time is after `now`. */
  private enqueueFromNow(state: ScheduleState, now: number): void {
    let cursor = Math.max(state.handledUntil, now - state.spec.jitterMs);
    state.handledUntil = cursor;
    for (;;) {
      const slot = nextFireTime(state.spec, new Date(cursor));
      if (slot === undefined) return;
      const fireAt = fireTimeOf(state.spec, slot).getTime();
      if (fireAt > now) {
        this.push(state, slot);
        return;
      }
      cursor = state.handledUntil = slot.getTime();
    }
  }

  private push(state: ScheduleState, slot: Date): void {
    const { name } = state.spec;
    const entry = {
      fireAt: fireTimeOf(state.spec, slot).getTime(),
      slot: slot.getTime(),
      name,
    };
    state.next = entry;
    this.instants.push(entry);
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    this.armedFor = undefined;
    const now = this.deps.now();
    const drift = this.expectedWake === undefined ? 0 : now - this.expectedWake;
    this.expectedWake = undefined;
    const passStart = performance.now();
    let slots = 0;
    if (Math.abs(drift) > this.lateAfterMs) {
      if (drift < 0) this.replan(now);
      this.emit({ kind: "clock-jump", ms: drift, at: new Date(now) });
    }
    // Each pass dispatches everything due before computing any next fire time, so a
    // thousand schedules on one second all go out at once; a further pass only runs for
    // schedules whose next slot is already due too (per-second patterns).
    while ((this.instants.peek() ?? Infinity) <= now) {
      const fired: Array<{ state: ScheduleState; generation: number; missed: boolean }> = [];
      for (
        let due = this.instants.takeDue(now);
        due !== undefined;
        due = this.instants.takeDue(now)
      ) {
        const lateness = now - due.fireAt;
        const missed = lateness > this.lateAfterMs;
        const onTime: Entry[] = [];
        for (const top of due.entries) {
          const state = this.states.get(top.name);
          if (state === undefined || state.next !== top) {
            this.stale = Math.max(0, this.stale - 1); // removed or replaced
            continue;
          }
          state.next = undefined;
          state.handledUntil = top.slot;
          fired.push({ state, generation: state.generation, missed });
          if (!missed) onTime.push(top);
          else {
            const [slot, fireAt, until] = [new Date(top.slot), new Date(top.fireAt), new Date(now)];
            this.emit({ kind: "missed", name: top.name, slot, fireAt, lateness, until });
          }
        }
        if (onTime.length > 0)
          this.emit({ kind: "due", slots: onTime, fireAt: new Date(due.fireAt), lateness });
      }
      slots += fired.length;
      for (const { state, generation, missed } of fired) {
        // The handler may have removed or replaced the schedule meanwhile.
        if (this.states.get(state.spec.name) !== state || state.generation !== generation) continue;
        // After a miss, every passed slot is covered by the report; otherwise the very next
        // slot is queued even if already due, so it is reported rather than skipped.
        if (missed) this.enqueueFromNow(state, now);
        else {
          const slot = nextFireTime(state.spec, new Date(state.handledUntil));
          if (slot !== undefined) this.push(state, slot);
        }
      }
    }
    if (slots > 0) this.options.onPass?.(slots, performance.now() - passStart);
    if (this.running) this.arm();
  };

  private emit(event: FireEvent): void {
    this.guarded(() => this.onEvent(event));
  }

  /** Runs a handler; what it throws goes to `onHandlerError`, never through the queue. */
  private guarded(handler: () => void): void {
    try {
      handler();
    } catch (err) {
      const report =
        this.options.onHandlerError ??
        ((e: unknown) =>
          queueMicrotask(() => {
            throw e;
          }));
      report(err);
    }
  }

  private arm(): void {
    const fireAt = this.instants.peek();
    if (fireAt === undefined) {
      this.disarm();
      return;
    }
    const now = this.deps.now();
    // A long sleep wakes a little early; the short one after it ends at the instant.
    const wakeAt = fireAt - Math.min(100, Math.floor((fireAt - now) * EARLY_SHARE));
    if (this.timer !== undefined && this.armedFor !== undefined && this.armedFor <= wakeAt) return;
    this.disarm();
    const delay = Math.min(this.maxSleepMs, Math.max(0, wakeAt - now));
    this.armedFor = delay === this.maxSleepMs ? now + delay : wakeAt;
    this.expectedWake = now + delay;
    this.timer = this.deps.setTimeout(this.tick, delay);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.deps.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
    this.expectedWake = undefined;
  }
}
