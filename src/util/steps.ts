// Long synchronous work written once, as a generator that yields between steps, and run two
// ways: to the end at once (the CLI's `validate`, tests), or in slices that give the event
// loop back every few milliseconds (the daemon loading 100,000 schedules while it answers
// /healthz and fires what is due).

/** Work that yields (nothing) between steps and returns a `T`. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end without yielding to the event loop. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Most time spent in one slice before the event loop gets a turn (plus one step's time). */
export const SLICE_MS = 3;

/** A turn away from the work this long (a garbage collection ran, or other work) is long. */
const LONG_TURN_MS = 5;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `steps`, giving the event loop a turn (setImmediate) whenever a slice has taken
 * `sliceMs`: the loop is blocked for at most a slice plus the longest single step. When the
 * turn in between was long (a young-generation collection runs as a task between turns), the
 * timers have waited that long already: they get one more turn before the next slice, so the
 * collection and a slice do not add up.
 */
export async function runSliced<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - sliceStart >= sliceMs) {
      const yielded = performance.now();
      await nextTurn();
      if (performance.now() - yielded > LONG_TURN_MS) await nextTurn();
      sliceStart = performance.now();
    }
  }
}

/**
 * `runSliced` for an async loop that cannot be written as Steps: `turnIfDue()` after each
 * item gives the event loop a turn once the slice has taken `sliceMs`.
 */
export class SliceTimer {
  private start = performance.now();
  constructor(private readonly sliceMs = SLICE_MS) {}

  async turnIfDue(): Promise<void> {
    if (performance.now() - this.start < this.sliceMs) return;
    await nextTurn();
    this.start = performance.now();
  }
}

/** Yields every `every` items of `items`, calling `each` on each one. */
export function* eachItem<T>(
  items: Iterable<T>,
  each: (item: T) => void,
  every = 100,
): Steps<void> {
  // Arrays by index: a for-of step in a generator allocates its result object.
  if (Array.isArray(items)) {
    for (let i = 0; i < items.length; i++) {
      each(items[i] as T);
      if ((i + 1) % every === 0) yield;
    }
    return;
  }
  let n = 0;
  for (const item of items) {
    each(item);
    if (++n % every === 0) yield;
  }
}

/**
 * How many items the next step takes, sized by how fast the last one went so that a step
 * takes about `stepMs`: code still cold (the first files of a load) gets small steps, warm
 * code bigger ones, between `min` and `max` items.
 */
export class StepPace {
  /** Items in the next step. */
  size: number;

  constructor(
    private readonly stepMs: number,
    private readonly min: number,
    private readonly max: number,
  ) {
    if (!(min >= 1 && max >= min)) throw new RangeError(`a step pace of ${min}-${max} items`);
    this.size = min;
  }

  /** Always `n` items a step (tests, and callers that want no timing). */
  static fixed(n: number): StepPace {
    return new StepPace(0, n, n);
  }

  /** The last step took `ms` for `items` items. */
  took(items: number, ms: number): void {
    const fit = Math.round((this.stepMs * items) / Math.max(ms, 0.01));
    if (Number.isNaN(fit)) return; // a step with no time to go by keeps the size
    this.size = Math.max(this.min, Math.min(this.max, fit));
  }
}
