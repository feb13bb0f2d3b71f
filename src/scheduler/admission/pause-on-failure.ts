// `pause_after_failures = N`: a schedule whose last N runs failed in a row is paused by the
// scheduler itself, saying why in paused.json, and stays paused until someone resumes it.
import type { RunLedger } from "../ledger/ledger.js";
import { refusedAsConfigured } from "../ledger/run-outcome.js";
import { isPaused, type PauseReason, readPauseState, setPaused } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";

/** Ended runs that count as failures; skipped slots and operator stops neither count nor break. */
const FAILED = new Set(["failed", "timed_out"]);

/** The schedule's failed runs in a row, newest first (at most `limit`). */
export function failedInARow(
  ledger: Pick<RunLedger, "runIdsNewestFirst" | "summary">,
  schedule: string,
  limit: number,
  /** ISO: runs launched before this (its last resume) no longer count. */
  since?: string,
): string[] {
  const runs: string[] = [];
  const from = since === undefined ? Number.NEGATIVE_INFINITY : Date.parse(since);
  for (const runId of ledger.runIdsNewestFirst(schedule)) {
    const run = ledger.summary(runId);
    if (run === undefined || run.status === "skipped" || run.status === "killed") continue;
    if (refusedAsConfigured(run)) continue;
    if (Date.parse(run.scheduledAt ?? run.slot) < from) break;
    if (!FAILED.has(run.status)) break;
    runs.push(runId);
    if (runs.length >= limit) break;
  }
  return runs;
}

/** Pauses `schedule` when its last `pause_after_failures` runs failed; the reason, if it did. */
export function pauseOnFailures(
  stateDir: string,
  ledger: Pick<RunLedger, "runIdsNewestFirst" | "summary">,
  schedule: Schedule,
  now = new Date(),
): PauseReason | undefined {
  const limit = schedule.pauseAfterFailures;
  if (limit === undefined) return undefined;
  const state = readPauseState(stateDir);
  if (isPaused(state, schedule.name)) return undefined;
  const runs = failedInARow(ledger, schedule.name, limit, state.resumed?.[schedule.name]);
  if (runs.length < limit) return undefined;
  const reason: PauseReason = {
    by: "pause_after_failures",
    at: now.toISOString(),
    failures: runs.length,
    runs,
  };
  setPaused(stateDir, schedule.name, true, reason);
  return reason;
}
