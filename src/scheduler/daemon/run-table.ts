// The daemon's running runs: by id, by schedule, and the launches decided but not yet
// spawned, which already count against max_concurrent_runs.
import type { PendingLaunch } from "../launch/launch-stop.js";
import type { RunCeiling } from "../launch/spec.js";
import type { RunOutcome } from "../ledger/run-outcome.js";

export interface ActiveRun {
  runId: string;
  schedule: string;
  stop(reason: string): void;
  done: Promise<RunOutcome>;
}

const NONE: readonly string[] = [];

export class RunTable {
  readonly active = new Map<string, ActiveRun>();
  /** Claimed launches not spawned yet (fetching their remote): stoppable, counted as reserved. */
  readonly launching = new Map<string, PendingLaunch>();
  /** Run ids per schedule (active and reserved), so a decision never scans every run. */
  private readonly bySchedule = new Map<string, Set<string>>();
  private reserved = 0;
  /** Budget ceilings of reserved launches not yet claimed in the ledger, by run id. */
  private readonly unclaimed = new Map<string, { schedule: string; ceiling: RunCeiling }>();

  /** Runs that count against max_concurrent_runs: running plus about to spawn. */
  get size(): number {
    return this.active.size + this.reserved;
  }

  /** Run ids of this schedule, running or about to spawn. */
  runningOf(schedule: string): readonly string[] {
    const ids = this.bySchedule.get(schedule);
    return ids === undefined ? NONE : [...ids];
  }

  /** A run to stop by id: running, or still being launched. */
  stoppable(runId: string): Pick<ActiveRun, "stop"> | undefined {
    return this.active.get(runId) ?? this.launching.get(runId);
  }

  isBusy(schedule: string): boolean {
    return this.bySchedule.has(schedule);
  }

  /** A launch decided now and spawned later, holding its budget ceiling until its claim. */
  reserve(schedule: string, runId: string, ceiling: RunCeiling | undefined): void {
    this.reserved++;
    this.add(schedule, runId);
    if (ceiling !== undefined) this.unclaimed.set(runId, { schedule, ceiling });
  }

  /** Ceilings of this schedule's reserved launches that the ledger does not count yet. */
  unclaimedOf(schedule: string): RunCeiling[] {
    const held: RunCeiling[] = [];
    for (const u of this.unclaimed.values()) if (u.schedule === schedule) held.push(u.ceiling);
    return held;
  }

  /** The launch's claim is in the ledger (or it was dropped): the ledger counts its ceiling now. */
  claimed(runId: string): void {
    this.unclaimed.delete(runId);
  }

  /** The reserved launch happened (`run`) or was dropped (undefined). */
  settle(schedule: string, runId: string, run: ActiveRun | undefined): void {
    this.reserved--;
    this.unclaimed.delete(runId);
    if (run === undefined) this.remove(schedule, runId);
    else this.active.set(runId, run);
  }

  /** A run that started elsewhere (adopted after a restart). */
  adopt(run: ActiveRun): void {
    this.active.set(run.runId, run);
    this.add(run.schedule, run.runId);
  }

  finish(run: ActiveRun): void {
    this.active.delete(run.runId);
    this.remove(run.schedule, run.runId);
  }

  private add(schedule: string, runId: string): void {
    let set = this.bySchedule.get(schedule);
    if (set === undefined) {
      set = new Set();
      this.bySchedule.set(schedule, set);
    }
    set.add(runId);
  }

  private remove(schedule: string, runId: string): void {
    const set = this.bySchedule.get(schedule);
    set?.delete(runId);
    if (set?.size === 0) this.bySchedule.delete(schedule);
  }
}
