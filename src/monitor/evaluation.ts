// Incremental evaluation: on a journal batch only the touched runs are detected again; a
// full pass (on the timer) re-reads every run, the schedules' facts and the ledger's streaks.
// Also decides how a firing alert that stopped holding ends (recovery, removal, run end).

import type { AlertRecord } from "./alert-state.js";
import { type Ending, type EndingFacts, kindOf } from "./detect/condition-kinds.js";
import type { Condition } from "./detect/conditions.js";
import { type DetectFacts, detectRun, readRunTasks } from "./detect/detectors.js";
import type { MonitorFacts } from "./detect/facts.js";
import { GroupingMemo, groupConditions, type Recovery } from "./detect/grouping.js";
import type { RunState } from "./detect/run-state.js";
import type { RunTracker } from "./detect/run-tracker.js";
import type { ScheduleStreak } from "./detect/schedule-streak.js";
import { scheduleConditions } from "./detect/schedule-trouble.js";
import type { SchedulerView } from "./scheduler-view.js";

export class IncrementalEvaluation {
  /** Runs with records since the last evaluation; only their facts are re-read on a batch. */
  private readonly touched = new Set<string>();
  /**
   * Each run's conditions as of the last pass that looked at it: a full pass looks at every
   * run, a batch-triggered one only at the touched runs. Undefined: the next pass is full.
   */
  private conditionsByRun: Map<string, Condition[]> | undefined;
  /** Schedule conditions of the last full pass: journal lines never change them. */
  private scheduleConditions: Condition[] = [];
  /** Groups of the last pass, reused when their runs' conditions did not change. */
  private readonly grouping = new GroupingMemo();
  /** Per schedule, its failed runs since the last completed one (ledger, last full pass). */
  private streaks = new Map<string, ScheduleStreak>();
  /** Per schedule, its latest completed run as the journals showed it. */
  private readonly completions = new Map<string, Recovery>();
  /**
   * Runs whose terminal record is not (yet) their end: their harness still runs (a stuck
   * agent can append any line to its journal). As of the last pass that looked at each run.
   */
  private pendingEnds = new Set<string>();

  constructor(
    private readonly tracker: RunTracker,
    private readonly facts: MonitorFacts,
    private readonly view: SchedulerView,
  ) {}

  /** A run got new journal records: the next batch pass looks at it again. */
  touch(runId: string): void {
    this.touched.add(runId);
  }

  /**
   * The grouped conditions that hold now. `full` says whether every run was looked at
   * (always on the first pass and after a failed one).
   */
  conditions(now: Date, onlyTouched: boolean): { conditions: Condition[]; full: boolean } {
    const thresholds = this.view.thresholds();
    const deps = { tasksOf: readRunTasks };
    let byRun = this.conditionsByRun;
    let runs: RunState[];
    const full = !onlyTouched || byRun === undefined;
    if (!full && byRun !== undefined) {
      // Only touched runs changed; the others keep the conditions of the last full pass
      // (at most evaluateEveryMs old), so a batch costs its own runs, not all of them.
      runs = [];
      for (const id of this.touched) {
        const run = this.tracker.get(id);
        if (run === undefined) byRun.delete(id);
        else runs.push(run);
      }
    } else {
      this.facts.forget(this.tracker.prune(now));
      runs = this.tracker.list();
      byRun = new Map();
      this.pendingEnds = new Set();
    }
    this.conditionsByRun = undefined; // until this pass succeeds
    this.touched.clear();
    const facts: DetectFacts = full
      ? this.facts.collect(runs, now)
      : { runs: this.facts.collectRuns(runs, { reuseLiveness: true, now }) };
    for (const run of runs) {
      byRun.set(run.run, detectRun(run, facts, now, thresholds, deps));
      const f = facts.runs.get(run.run);
      if (f?.unconfirmedEnd === true) this.pendingEnds.add(run.run);
      else this.pendingEnds.delete(run.run);
      this.noteCompletion(run, f?.schedule);
    }
    if (full) {
      this.scheduleConditions = scheduleConditions(facts.schedules ?? {}, thresholds);
      this.streaks = this.facts.streaks(undefined, now);
    }
    this.conditionsByRun = byRun;
    const perRun: Condition[] = [];
    for (const list of byRun.values()) for (const c of list) perRun.push(c);
    const conditions = groupConditions(
      {
        conditions: [...perRun, ...this.scheduleConditions],
        streaks: this.streaks,
        completions: this.completions,
        gateRefusals: (id) => this.tracker.get(id)?.gate?.episodeRefusals ?? 0,
        isScheduled: (name) => this.view.isScheduled(name),
      },
      this.grouping,
    );
    return { conditions, full };
  }

  /**
   * The run's end for the alert lifecycle: its terminal record, once the record is the
   * harness's (its harness is gone, or the scheduler's ledger says it ended). A terminal
   * record while the harness runs ends nothing: no resolution, so no re-firing either.
   */
  private endOf(run: RunState | undefined): RunState["terminal"] {
    return run === undefined || this.pendingEnds.has(run.run) ? undefined : run.terminal;
  }

  /** A run's completion, remembered per schedule: it ends that schedule's failing groups. */
  private noteCompletion(run: RunState, schedule: string | undefined): void {
    const end = this.endOf(run);
    if (schedule === undefined || end?.topic !== "loop.complete") return;
    const known = this.completions.get(schedule);
    if (known === undefined || Date.parse(end.at) > Date.parse(known.at))
      this.completions.set(schedule, { at: end.at, run: run.run });
  }

  /** What a kind's own ending is decided from (condition-kinds.ts). */
  private readonly endingFacts: EndingFacts = {
    schedulesLoaded: () => this.view.loaded(),
    run: (id) => {
      const state = this.tracker.get(id);
      return { state, ended: this.endOf(state) !== undefined };
    },
    latestRun: (schedule) => this.view.ledger()?.latestRun(schedule),
  };

  /**
   * How a firing alert that stopped holding ends: recovery and run ends are facts, not flaps.
   * A schedule's group ends by a completed run, a kind by its own facts, a run's group by its end.
   */
  endingOf(rec: AlertRecord): Ending | undefined {
    const c = rec.condition;
    const newest = c.group?.members[0]?.at ?? c.occurredAt;
    if (c.group?.by === "schedule" && c.schedule !== undefined) {
      if (this.view.loaded() && !this.view.schedules().has(c.schedule))
        return { kind: "resolve", note: `schedule ${c.schedule} was removed from the config` };
      const fromLedger = this.streaks.get(c.schedule);
      const candidates: Recovery[] = [];
      if (fromLedger?.lastCompletedAt !== undefined && fromLedger.lastCompletedRun !== undefined)
        candidates.push({ at: fromLedger.lastCompletedAt, run: fromLedger.lastCompletedRun });
      const fromJournal = this.completions.get(c.schedule);
      if (fromJournal !== undefined) candidates.push(fromJournal);
      const recovery = candidates.find((r) => Date.parse(r.at) >= Date.parse(newest));
      if (recovery !== undefined) return { kind: "resolve", note: `run ${recovery.run} completed` };
      return undefined;
    }
    const own = kindOf(c).ending(c, this.endingFacts);
    if (own !== undefined) return own;
    if (c.group?.by === "run" && c.run !== undefined) {
      const run = this.tracker.get(c.run);
      if (run === undefined)
        return {
          kind: "expire",
          note: `run ${c.run} is no longer tracked (it ended over a day ago)`,
        };
      const end = this.endOf(run);
      if (end !== undefined) {
        const how = end.topic === "loop.complete" ? "completed" : end.reason;
        return { kind: "resolve", note: `run ${c.run} ended (${how})` };
      }
    }
    return undefined;
  }
}
