// A schedule's failure streak from its ledger: the runs that failed since its last completed
// run, newest first. The ledger sees every run, including those that write no journal
// (command schedules, a missing binary, a spawn failure), so no failure goes unseen.
import type { RunSummary } from "../../scheduler/ledger/events.js";
import { refusedAsConfigured } from "../../scheduler/ledger/run-outcome.js";
import type { RetryFact } from "./retry-facts.js";

/** How a ledger run failed, in the monitor's condition kinds. */
export type LedgerFailureKind = "run_failed" | "run_timed_out" | "run_crashed";

export interface LedgerFailure {
  runId: string;
  kind: LedgerFailureKind;
  /** When it ended (ISO), else when it started or was scheduled. */
  at: string;
  status: string;
  stopReason?: string;
  exitCode?: number;
  signal?: string;
  detail?: string;
  /** The last lines of its output log, when the caller read them. */
  outputTail?: string;
  /** On a schedule that retries: its attempt, and whether another is coming. */
  retry?: RetryFact;
}

export interface ScheduleStreak {
  schedule: string;
  /** Failed runs since the last completed one, newest first (at most the scan limit). */
  failures: LedgerFailure[];
  /** True when the scan stopped at its limit before finding a completed run. */
  truncated: boolean;
  /** When the latest completed run ended; undefined when none was seen in the scan. */
  lastCompletedAt?: string;
  lastCompletedRun?: string;
}

/** Runs looked at per schedule, newest first, before giving up on finding a completion. */
export const STREAK_SCAN_LIMIT = 200;

/** The failure kind of a finished run, or undefined when it is not a failure anyone must hear of. */
export function ledgerFailureKind(run: RunSummary): LedgerFailureKind | undefined {
  // Stopped on purpose (an operator, `overlap = "replace"`, a shutdown): never a failure.
  if (run.killedBy !== undefined && run.killedBy !== "timeout" && run.status !== "timed_out")
    return undefined;
  // Refused as configured (a fork's pull request): the schedule did what it was told.
  if (refusedAsConfigured(run)) return undefined;
  switch (run.status) {
    case "failed":
      return "run_failed";
    case "timed_out":
      return "run_timed_out";
    case "interrupted":
      // Killed by a signal nobody sent on purpose, or gone without a word: a crash. An
      // interruption the harness journaled (SIGTERM, shutdown) was meant.
      return run.signal !== undefined || run.basis === "lost" ? "run_crashed" : undefined;
    default:
      return undefined;
  }
}

/**
 * The streak from a schedule's runs, newest first. Skipped slots, running runs, operator
 * kills and deliberate interruptions neither fail nor recover the schedule.
 */
export function scheduleStreak(
  schedule: string,
  newestFirst: Iterable<RunSummary>,
  limit = STREAK_SCAN_LIMIT,
): ScheduleStreak {
  const streak: ScheduleStreak = { schedule, failures: [], truncated: false };
  let seen = 0;
  for (const run of newestFirst) {
    if (seen++ >= limit) {
      streak.truncated = true;
      break;
    }
    if (run.status === "completed") {
      streak.lastCompletedAt = run.finishedAt ?? run.startedAt ?? run.slot;
      streak.lastCompletedRun = run.runId;
      break;
    }
    const kind = ledgerFailureKind(run);
    if (kind === undefined) continue;
    const failure: LedgerFailure = {
      runId: run.runId,
      kind,
      at: run.finishedAt ?? run.startedAt ?? run.scheduledAt ?? run.slot,
      status: run.status,
    };
    if (run.stopReason !== undefined) failure.stopReason = run.stopReason;
    if (run.exitCode !== undefined) failure.exitCode = run.exitCode;
    if (run.signal !== undefined) failure.signal = run.signal;
    if (run.detail !== undefined) failure.detail = run.detail;
    streak.failures.push(failure);
  }
  return streak;
}
