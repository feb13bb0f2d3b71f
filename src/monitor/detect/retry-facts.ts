// What a failed run's schedule does about it (`retry`): which attempt of its slot it was, the
// slot's attempts so far, and whether a later attempt is owed or under way. With `page =
// "last"` such a run's end pages nobody: the slot's last attempt does, listing every one.
import type { RetryPolicy } from "../../scheduler/config/fields.js";
import { isTerminal, type RunSummary } from "../../scheduler/ledger/events.js";
import type { RunLedger } from "../../scheduler/ledger/ledger.js";
import { attemptOf, retryDecision } from "../../scheduler/retry/plan.js";
import type { Schedule } from "../../scheduler/schedules/schedule-file.js";
import { nextFireTime } from "../../scheduler/timing/planner.js";

/** Runs of the schedule looked at, newest first, for the attempts of a run's slot. */
const ATTEMPT_SCAN = 30;

export interface RetryFact {
  /** The run's attempt of its slot, and the attempts the schedule allows in all. */
  attempt: number;
  of: number;
  page: RetryPolicy["page"];
  /** A later attempt of the slot is owed or has started: this end is not the slot's last. */
  retried: boolean;
  /** The ledger has not closed the run yet, so whether it is retried is not known yet. */
  unsettled: boolean;
  /** When the next attempt starts, when one is owed and not started yet (ISO). */
  nextAt?: string;
  /** Every attempt of the slot so far, the first first: one line each. */
  attempts: string[];
}

function attemptLine(run: RunSummary, of: number): string {
  const how =
    run.status === "skipped"
      ? `not started (${run.skipCause ?? "skipped"})`
      : [run.status, run.stopReason ?? (run.exitCode !== undefined ? `exit ${run.exitCode}` : "")]
          .filter((s) => s !== "")
          .join(": ");
  return `attempt ${attemptOf(run)} of ${of}: run ${run.runId} ${how}`;
}

/**
 * The retry fact of a run that ended (in the ledger, or by its journal while the ledger has
 * not caught up); undefined when its schedule does not retry.
 */
export function retryFact(
  ledger: Pick<RunLedger, "runIdsNewestFirst" | "summary">,
  schedule: Schedule | undefined,
  run: RunSummary,
): RetryFact | undefined {
  const policy = schedule?.retry;
  if (schedule === undefined || policy === undefined) return undefined;
  const root = run.parentRunId ?? run.runId;
  const slot: RunSummary[] = [];
  let seen = 0;
  for (const id of ledger.runIdsNewestFirst(schedule.name)) {
    if (seen++ >= ATTEMPT_SCAN) break;
    const s = id === run.runId ? run : ledger.summary(id);
    if (s !== undefined && (s.runId === root || s.parentRunId === root)) slot.push(s);
    if (id === root) break;
  }
  if (!slot.some((s) => s.runId === run.runId)) slot.push(run);
  slot.sort((a, b) => attemptOf(a) - attemptOf(b));
  const attempt = attemptOf(run);
  const started = slot.some((s) => attemptOf(s) > attempt && s.status !== "skipped");
  const unsettled = !isTerminal(run.status);
  const decision =
    started || unsettled
      ? undefined
      : retryDecision(policy, run, (at) => nextFireTime(schedule, at));
  const owed =
    decision?.kind === "retry" && !slot.some((s) => attemptOf(s) > attempt)
      ? decision.plan
      : undefined;
  const fact: RetryFact = {
    attempt,
    of: policy.attempts,
    page: policy.page,
    retried: started || owed !== undefined,
    unsettled,
    attempts: slot.map((s) => attemptLine(s, policy.attempts)),
  };
  if (owed !== undefined) fact.nextAt = new Date(owed.at).toISOString();
  return fact;
}
