// Timers for which 0 means "right after the work in hand", not "in at least 1 ms": Node
// clamps setTimeout(fn, 0) to 1 ms, and an alert's path (journal line → detection → outbox
// → webhook) takes three such hops.

export interface Pending {
  cancel(): void;
}

/** Calls `fn` after `ms` (a setImmediate when `ms` <= 0); `unref` lets the process exit first. */
export function after(ms: number, fn: () => void, unref = false): Pending {
  if (ms <= 0) {
    const immediate = setImmediate(fn);
    if (unref) immediate.unref();
    return { cancel: () => clearImmediate(immediate) };
  }
  const timeout = setTimeout(fn, ms);
  if (unref) timeout.unref();
  return { cancel: () => clearTimeout(timeout) };
}

/**
 * Calls `fn` as soon as the work in hand returns (a microtask), ahead of the I/O and
 * immediates already queued (the outbox sends an alert the moment the monitor pass that
 * enqueued it ends; a setImmediate waited behind the rest of the loop's turn).
 */
export function whenDone(fn: () => void): Pending {
  let live = true;
  queueMicrotask(() => {
    if (live) fn();
  });
  return {
    cancel: () => {
      live = false;
    },
  };
}
