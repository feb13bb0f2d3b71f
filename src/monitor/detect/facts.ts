// The facts detectors need beyond the journal: which schedule launched a run, whether its
// harness lives, how the scheduler ended it, and each schedule's recent slots, missed slots
// and invalid files. Gathered from the ledger, registries beside journals and daemon events.

import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { RegistryView } from "../../journal/registry-view.js";
import { isTerminal, type RunSummary } from "../../scheduler/ledger/events.js";
import type { RunLedger } from "../../scheduler/ledger/ledger.js";
import type { PreflightState } from "../../scheduler/preflight/preflight-file.js";
import type { PauseState } from "../../scheduler/schedules/pause-state.js";
import type { Schedule } from "../../scheduler/schedules/schedule-file.js";
import { type FieldProblem, formatProblem } from "../../util/errors.js";
import { readTail } from "../../util/read-tail.js";
import { refusedLogins } from "./agent-logins.js";
import type {
  DetectFacts,
  RunFacts,
  ScheduleFacts,
  SchedulerVerdict,
  SlotOutcome,
} from "./detectors.js";
import {
  HarnessLiveness,
  type HeartbeatsAt,
  type LaunchedProcess,
  launchedProcess,
  type ProcessChecks,
} from "./harness-liveness.js";
import { PassLiveness } from "./liveness.js";
import { type ExpectedSlot, expectedSlot, isOverdue } from "./overdue-slots.js";
import { type RetryFact, retryFact } from "./retry-facts.js";
import { RunEnds } from "./run-ends.js";
import type { RunState } from "./run-state.js";
import { type ScheduleStreak, STREAK_SCAN_LIMIT, scheduleStreak } from "./schedule-streak.js";
import { type BudgetFact, budgetFact, type CostlyFact, costlyFact } from "./spend-facts.js";
import type { ThresholdsFor } from "./thresholds.js";

export interface FactSources {
  ledger: () => RunLedger | undefined;
  schedules: () => ReadonlyMap<string, Schedule>;
  /** Problems of the current schedule files (the daemon's `invalidProblems`). */
  invalid: () => readonly FieldProblem[];
  /** The daemon's own writes that fail (ledger, outbox), while they do. */
  writeTrouble?: () => NonNullable<ScheduleFacts["writeTrouble"]>;
  /** paused.json as it is now: schedules the scheduler paused itself, and why. */
  pauseState?: () => PauseState;
  /** preflight.json as it is now: what each schedule's latest login check found. */
  preflightState?: () => PreflightState;
  /** Display paths of schedule files are relative to this folder. */
  configDir: string;
  /** The scheduler's output logs, `<dir>/<run-id>.log`: failures quote their last lines. */
  outputDir?: string;
  isAlive?: (pid: number) => boolean;
  /** Whose process a live pid is (default: /proc, as `stop` and `guide` tell). */
  processChecks?: ProcessChecks;
  /**
   * A run's journal says it ended while its harness (pid) still runs: the record is not the
   * harness's (a stuck agent can append any line). Called once per run.
   */
  onUnconfirmedEnd?: (run: RunState, pid: number) => void;
  /**
   * No daemon in this process (Kubernetes, timers): nobody else notices a slot whose run never
   * starts, so the monitor expects each slot's run within `missedGraceMs`.
   */
  expectSlots?: { pauseState: () => PauseState; thresholds: () => ThresholdsFor };
}

/** How much of a failed run's output log its alert quotes. */
const OUTPUT_TAIL_BYTES = 4096;
const OUTPUT_TAIL_LINES = 15;

/** Slots looked at per schedule for skipped-in-a-row trouble. */
const RECENT_SLOTS = 20;

/**
 * Slots skipped on purpose, not trouble: paused, disabled, a spent budget (its own alert), no
 * issue ready in the schedule's tracker.
 */
const ON_PURPOSE: ReadonlySet<string> = new Set([
  "paused",
  "disabled",
  "budget_exhausted",
  "no_issue",
]);

/** Where the ledger's launchers keep their heartbeats, for a pass at `now`. */
function heartbeatsAt(ledger: RunLedger | undefined, now: Date): HeartbeatsAt | undefined {
  return ledger === undefined ? undefined : { stateDir: ledger.stateDir, now: now.getTime() };
}

export class MonitorFacts {
  private readonly launched = new Map<string, string>();
  private readonly missed = new Map<string, string[]>();
  private readonly registries = new Map<string, RegistryView>();
  /** Terminal ledger summaries never change again: read once. */
  private readonly ended = new Map<string, RunSummary>();
  private readonly ends: RunEnds;
  private readonly invalidSince = new Map<string, string>();
  /** Per schedule, the terminal summaries its last streak scan read. */
  private readonly streakRuns = new Map<string, Map<string, RunSummary>>();
  /** Retry facts that can no longer change, by run id. */
  private readonly retries = new Map<string, RetryFact>();
  /** When each run was first seen ended by its journal and not yet by the ledger (epoch ms). */
  private readonly unsettledSince = new Map<string, number>();
  /** Output log tails of failed runs in a current streak. */
  private readonly tails = new Map<string, string | undefined>();
  /** Per schedule, the slot expected after its newest run. */
  private readonly expected = new Map<string, ExpectedSlot>();
  private readonly liveness: PassLiveness;
  private readonly harnesses: HarnessLiveness;
  /** When this monitor began: a schedule that never ran is expected from then on. */
  private readonly watchStart: number;

  constructor(
    private readonly sources: FactSources,
    now: Date = new Date(),
  ) {
    this.watchStart = now.getTime();
    this.liveness = new PassLiveness(sources.isAlive);
    this.harnesses = new HarnessLiveness(sources.processChecks);
    this.ends = new RunEnds(sources.onUnconfirmedEnd);
  }

  /** A daemon `fire` event; a regular slot firing again ends that schedule's missed trouble. */
  noteFire(schedule: string, runId: string, trigger: string): void {
    this.launched.set(runId, schedule);
    if (trigger === "cron") this.missed.delete(schedule);
  }

  /** A daemon `missed` event: slots missed while it was down hold until the next regular fire. */
  noteMissed(schedule: string, slots: readonly Date[], reason: string): void {
    if (reason !== "daemon_down" || slots.length === 0) return;
    const all = new Set([
      ...(this.missed.get(schedule) ?? []),
      ...slots.map((s) => s.toISOString()),
    ]);
    this.missed.set(schedule, [...all].sort());
  }

  /** The ledger's summary of a run the scheduler launched; undefined for other runs. */
  summaryOf(runId: string, ledger = this.sources.ledger()): RunSummary | undefined {
    return this.ledgerRun(runId, ledger)?.summary;
  }

  /** The ledger's summary of a run and, while it runs, the process it was launched in. */
  private ledgerRun(
    runId: string,
    ledger: RunLedger | undefined,
  ): { summary: RunSummary; process?: LaunchedProcess | undefined } | undefined {
    const done = this.ended.get(runId);
    if (done !== undefined) return { summary: done };
    const replay = ledger?.replay(runId);
    if (replay === undefined) return undefined;
    const { summary, events } = replay;
    if (isTerminal(summary.status)) this.ended.set(runId, summary);
    return { summary, process: launchedProcess(summary, events) };
  }

  scheduleOf(runId: string, ledger = this.sources.ledger()): string | undefined {
    const known = this.launched.get(runId);
    if (known !== undefined) return known;
    const schedule = this.summaryOf(runId, ledger)?.schedule;
    return schedule === undefined || schedule === "" ? undefined : schedule;
  }

  collect(runs: readonly RunState[], now: Date = new Date()): DetectFacts {
    const ledger = this.sources.ledger();
    return {
      runs: this.collectRuns(runs, { ledger, now }),
      schedules: this.scheduleFacts(ledger, now),
    };
  }

  /** The per-run part of `collect`; `reuseLiveness`: see `PassLiveness.check`. */
  collectRuns(
    runs: readonly RunState[],
    { ledger = this.sources.ledger(), reuseLiveness = false, now = new Date() } = {} as {
      ledger?: RunLedger | undefined;
      reuseLiveness?: boolean;
      now?: Date;
    },
  ): Map<string, RunFacts> {
    const facts = new Map<string, RunFacts>();
    const refreshed = new Set<string>();
    const alive = this.liveness.check(runs.length, reuseLiveness);
    for (const run of runs) facts.set(run.run, this.runFacts(run, ledger, refreshed, alive, now));
    return facts;
  }

  /** Forgets per-run memory of runs the tracker no longer holds. */
  forget(runIds: readonly string[]): void {
    for (const id of runIds) {
      this.launched.delete(id);
      this.ended.delete(id);
      this.retries.delete(id);
      this.unsettledSince.delete(id);
      this.ends.forget(id);
      this.harnesses.forget(id);
    }
  }

  private runFacts(
    run: RunState,
    ledger: RunLedger | undefined,
    refreshed: Set<string>,
    alive: (pid: number) => boolean,
    now: Date,
  ): RunFacts {
    const facts: RunFacts = {};
    const launched = this.ledgerRun(run.run, ledger);
    const summary = launched?.summary;
    // A chain's step is not in the ledger: it belongs to its chain's schedule.
    const schedule =
      this.scheduleOf(run.run, ledger) ??
      (run.chainStep === true && run.parentRun !== undefined
        ? this.scheduleOf(run.parentRun, ledger)
        : undefined);
    if (schedule !== undefined) facts.schedule = schedule;
    const verdict = verdictOf(summary);
    if (verdict !== undefined) facts.verdict = verdict;
    const ended =
      summary !== undefined && (isTerminal(summary.status) || run.terminal !== undefined);
    if (ended && schedule !== undefined && run.terminal?.topic !== "loop.complete") {
      const retry = this.retryOf(summary, schedule, ledger, now);
      if (retry !== undefined) facts.retry = retry;
    }
    if (this.ends.confirmed(run)) return facts;
    // A run the daemon launched (a chain's step: its chain) is judged by the ledger alone; one
    // started by hand by its registry (harness-liveness.ts). Unknown liveness (another host):
    // the stall threshold decides instead of a false crash.
    const byLedger =
      launched ??
      (run.chainStep === true && run.parentRun !== undefined
        ? this.ledgerRun(run.parentRun, ledger)
        : undefined);
    // The scheduler's own record says the run ended: its harness is gone, whatever a pid says.
    if (byLedger !== undefined && isTerminal(byLedger.summary.status)) {
      facts.alive = false;
      return this.ends.judge(run, facts, undefined);
    }
    const { alive: live, pid } =
      byLedger !== undefined
        ? this.harnesses.launched(run.run, byLedger.process, alive, heartbeatsAt(ledger, now))
        : this.harnesses.handStarted(run.run, this.registryEntry(run, refreshed), alive);
    if (live !== undefined) facts.alive = live;
    return this.ends.judge(run, facts, pid);
  }

  /**
   * What the schedule's `retry` does about a run that ended badly. Kept once it can no longer
   * change: a later attempt started, or the slot's retries are over.
   */
  private retryOf(
    summary: RunSummary,
    schedule: string,
    ledger: RunLedger | undefined,
    now: Date,
  ): RetryFact | undefined {
    if (summary.status === "completed" || summary.status === "skipped") return undefined;
    const known = this.retries.get(summary.runId);
    if (known !== undefined) return known;
    if (ledger === undefined) return undefined;
    const fact = retryFact(ledger, this.sources.schedules().get(schedule), summary, now.getTime());
    if (fact?.final === true) this.retries.set(summary.runId, fact);
    if (fact?.unsettled === true && !this.unsettledSince.has(summary.runId))
      this.unsettledSince.set(summary.runId, now.getTime());
    if (fact !== undefined && this.unsettledSince.has(summary.runId))
      fact.unsettledSince = this.unsettledSince.get(summary.runId)!;
    return fact;
  }

  /**
   * The run's registry entry. A run's pid and host never change once registered, so the
   * file is re-read (once per pass and journal) only for runs not seen with a pid yet:
   * with 1,000 busy journals, a stat per batch was a visible share of the monitor's CPU.
   */
  private registryEntry(
    run: RunState,
    refreshed: Set<string>,
  ): { pid?: number; host?: unknown } | undefined {
    let view = this.registries.get(run.journalPath);
    if (view === undefined) {
      view = new RegistryView(run.journalPath);
      this.registries.set(run.journalPath, view);
    }
    const known = view.known().get(run.run);
    if (known?.pid !== undefined || refreshed.has(run.journalPath)) return known;
    refreshed.add(run.journalPath);
    try {
      return view.refresh().get(run.run);
    } catch {
      return undefined;
    }
  }

  /**
   * Each loaded schedule's failure streak from the ledger (schedules without runs have
   * none). A schedule no longer in the config has no streak: its alerts end.
   */
  streaks(ledger = this.sources.ledger(), now = new Date()): Map<string, ScheduleStreak> {
    const out = new Map<string, ScheduleStreak>();
    if (ledger === undefined) return out;
    const loaded = this.sources.schedules();
    for (const name of ledger.schedulesWithRuns()) {
      if (!loaded.has(name)) continue;
      const seen = new Map<string, RunSummary>();
      const summaries = this.summariesNewestFirst(ledger, name, seen);
      const streak = scheduleStreak(name, summaries, STREAK_SCAN_LIMIT);
      this.streakRuns.set(name, seen);
      for (const f of streak.failures) {
        const tail = this.outputTail(f.runId);
        if (tail !== undefined) f.outputTail = tail;
        const summary = seen.get(f.runId);
        const retry = summary && this.retryOf(summary, name, ledger, now);
        if (retry !== undefined) f.retry = retry;
      }
      if (streak.failures.length > 0 || streak.lastCompletedAt !== undefined) out.set(name, streak);
    }
    for (const name of this.streakRuns.keys()) if (!loaded.has(name)) this.streakRuns.delete(name);
    const failing = new Set([...out.values()].flatMap((s) => s.failures.map((f) => f.runId)));
    for (const id of this.tails.keys()) if (!failing.has(id)) this.tails.delete(id);
    return out;
  }

  /** The last lines of a finished run's output log (read once: it no longer changes). */
  private outputTail(runId: string): string | undefined {
    if (this.tails.has(runId)) return this.tails.get(runId);
    const dir = this.sources.outputDir;
    const tail =
      dir === undefined ? undefined : readTail(join(dir, `${runId}.log`), OUTPUT_TAIL_BYTES);
    const text = tail?.split("\n").slice(-OUTPUT_TAIL_LINES).join("\n").trim();
    this.tails.set(runId, text === "" ? undefined : text);
    return this.tails.get(runId);
  }

  /**
   * A schedule's summaries newest first. Terminal ones are kept per schedule from one scan to
   * the next (only those the scan reached), so a pass reads the files of running runs only.
   */
  private *summariesNewestFirst(
    ledger: RunLedger,
    schedule: string,
    seen: Map<string, RunSummary>,
  ): Generator<RunSummary> {
    const before = this.streakRuns.get(schedule);
    for (const runId of ledger.runIdsNewestFirst(schedule)) {
      const summary = before?.get(runId) ?? this.ended.get(runId) ?? ledger.replay(runId)?.summary;
      if (summary === undefined) continue;
      if (isTerminal(summary.status)) seen.set(runId, summary);
      yield summary;
    }
  }

  /** Slots past due with no run, per schedule (only without a daemon in this process). */
  private overdue(
    ledger: RunLedger | undefined,
    now: Date,
  ): { schedule: string; slots: string[] }[] {
    const expect = this.sources.expectSlots;
    if (expect === undefined) return [];
    const loaded = this.sources.schedules();
    const paused = expect.pauseState();
    const thresholds = expect.thresholds();
    const out: { schedule: string; slots: string[] }[] = [];
    for (const name of this.expected.keys()) if (!loaded.has(name)) this.expected.delete(name);
    for (const schedule of loaded.values()) {
      if (!schedule.enabled || paused.all || paused.schedules.includes(schedule.name)) {
        this.expected.delete(schedule.name);
        continue;
      }
      const newest = ledger?.latestRun(schedule.name);
      const ran = newest === undefined ? Number.NaN : Date.parse(newest.slot);
      const reference = Number.isFinite(ran) ? Math.max(ran, this.watchStart) : this.watchStart;
      const slot = expectedSlot(schedule, reference, this.expected.get(schedule.name));
      this.expected.set(schedule.name, slot);
      const grace = thresholds(schedule.name).missedGraceMs;
      if (isOverdue(slot, schedule, grace, now.getTime()))
        out.push({ schedule: schedule.name, slots: [new Date(slot.slot!).toISOString()] });
    }
    return out;
  }

  private scheduleFacts(ledger: RunLedger | undefined, now: Date): ScheduleFacts {
    const recentSlots: NonNullable<ScheduleFacts["recentSlots"]>[number][] = [];
    const budgets: BudgetFact[] = [];
    const costly: CostlyFact[] = [];
    const loaded = this.sources.schedules();
    // Only schedules with runs: walking ten thousand idle schedules every pass is waste.
    for (const name of ledger?.schedulesWithRuns() ?? []) {
      const schedule = loaded.get(name);
      if (schedule === undefined || ledger === undefined) continue;
      const runs = ledger.listRuns({ schedule: name, limit: RECENT_SLOTS });
      const slots = runs
        .filter((r) => !ON_PURPOSE.has(r.skipCause ?? ""))
        .reverse()
        .map((r) => ({ slot: r.slot, outcome: slotOutcome(r) }));
      if (slots.length > 0) recentSlots.push({ schedule: name, slots });
      const budget = budgetFact(schedule, ledger, now.getTime());
      if (budget !== undefined) budgets.push(budget);
      const cost = costlyFact(schedule, ledger);
      if (cost !== undefined) costly.push(cost);
    }
    const missed = [
      ...[...this.missed].map(([schedule, slots]) => ({ schedule, slots })),
      ...this.overdue(ledger, now).map((m) => ({ ...m, noRun: true as const })),
    ];
    const writeTrouble = this.sources.writeTrouble?.() ?? [];
    const invalidFiles = this.invalidFiles();
    const reasons = this.sources.pauseState?.().reasons ?? {};
    const paused = Object.entries(reasons)
      .filter(([schedule]) => loaded.has(schedule))
      .map(([schedule, reason]) => ({ schedule, reason }));
    const loginsRefused = refusedLogins(this.sources.preflightState?.() ?? {}, loaded);
    return {
      ...{ recentSlots, missed, invalidFiles, writeTrouble, budgets, costly, paused },
      loginsRefused,
    };
  }

  private invalidFiles(): NonNullable<ScheduleFacts["invalidFiles"]>[number][] {
    const byFile = new Map<string, string[]>();
    for (const p of this.sources.invalid()) {
      byFile.set(p.file, [...(byFile.get(p.file) ?? []), formatProblem(p)]);
    }
    for (const file of this.invalidSince.keys())
      if (!byFile.has(file)) this.invalidSince.delete(file);
    return [...byFile].map(([file, problems]) => {
      let since = this.invalidSince.get(file);
      if (since === undefined) {
        since = mtimeOf(resolve(this.sources.configDir, file)) ?? new Date().toISOString();
        this.invalidSince.set(file, since);
      }
      return { file, problems, since };
    });
  }
}

function mtimeOf(path: string): string | undefined {
  try {
    return statSync(path).mtime.toISOString();
  } catch {
    return undefined;
  }
}

function slotOutcome(r: RunSummary): SlotOutcome {
  if (r.status !== "skipped") return "ran";
  return r.skipCause === "blocked_by_after" ? "blocked" : "skipped";
}

/** The scheduler's own verdict: it timed the run out, or someone had it killed on purpose. */
function verdictOf(summary: RunSummary | undefined): SchedulerVerdict | undefined {
  if (summary?.status === "timed_out") return { kind: "timed_out" };
  if (summary?.status === "killed") return { kind: "killed", by: summary.killedBy ?? "operator" };
  // Killed on purpose by another process (`fire` replacing it): whatever status it ended with.
  if (summary?.killedBy !== undefined && summary.killedBy !== "timeout")
    return { kind: "killed", by: summary.killedBy };
  return undefined;
}
