// Detector thresholds per schedule: `[schedule.monitor]` over `[monitor]` over built-in defaults.

/** Durations in milliseconds. */
export interface Thresholds {
  /** Consecutive gate refusals without progress before the gate is reported stuck. */
  gateRejections: number;
  /** A refused gate with no task completed for this long is stuck too. */
  gateGraceMs: number;
  /** No journal record for this long while the harness lives: `run_stalled`. */
  stallAfterMs: number;
  /**
   * A dead harness without a terminal record is a crash only once its last record is this
   * old: the follower may not have read the terminal record a dying harness just wrote.
   */
  crashGraceMs: number;
  /** Slots skipped or blocked in a row before `schedule_trouble`. */
  scheduleSkips: number;
  /** Without a daemon: a slot with no run this long after its (jittered) time is missed. */
  missedGraceMs: number;
  /** A run that cost this many times its schedule's median is `run_costly`; 0: off. */
  costFactor: number;
  /** The median is of this many of the schedule's last runs with a known cost. */
  costRuns: number;
}

export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = {
  gateRejections: 3,
  gateGraceMs: 30 * 60_000,
  stallAfterMs: 20 * 60_000,
  crashGraceMs: 15_000,
  scheduleSkips: 3,
  missedGraceMs: 5 * 60_000,
  costFactor: 0,
  costRuns: 10,
};

/** Thresholds for a schedule (undefined: a journal not tied to a schedule). */
export type ThresholdsFor = (schedule: string | undefined) => Thresholds;

/** Later layers win; a missing key falls through to the layer below. */
export function resolveThresholds(...layers: (Partial<Thresholds> | undefined)[]): Thresholds {
  const out: Thresholds = { ...DEFAULT_THRESHOLDS };
  for (const layer of layers) {
    for (const key of Object.keys(out) as (keyof Thresholds)[]) {
      const value = layer?.[key];
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}

/**
 * The lookup detectors use, from the `[monitor]` table and each schedule's (already merged or
 * raw) `monitor` table, e.g. `thresholdsBySchedule(config.monitor, schedules)`.
 */
export function thresholdsBySchedule(
  monitor: Partial<Thresholds> | undefined,
  schedules: readonly { name: string; monitor?: Partial<Thresholds> }[],
): ThresholdsFor {
  const byName = new Map(schedules.map((s) => [s.name, s]));
  return thresholdsLookup(monitor, (name) => byName.get(name));
}

/**
 * `thresholdsBySchedule` over a lookup of the schedules in force, resolved when asked: with
 * 100,000 schedules nothing is built per reload. Schedules without their own
 * `[schedule.monitor]` share one `monitor` object, so one result serves them all.
 */
export function thresholdsLookup(
  monitor: Partial<Thresholds> | undefined,
  find: (name: string) => { monitor?: Partial<Thresholds> } | undefined,
): ThresholdsFor {
  const fallback = resolveThresholds(monitor);
  const byTable = new WeakMap<object, Thresholds>();
  return (schedule) => {
    const table = schedule === undefined ? undefined : find(schedule)?.monitor;
    if (table === undefined) return fallback;
    let t = byTable.get(table);
    if (t === undefined) {
      t = resolveThresholds(monitor, table);
      byTable.set(table, t);
    }
    return t;
  };
}
