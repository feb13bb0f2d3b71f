// What a failed run's schedule does about it (`retry`): which attempt of its slot it was, the
// slot's attempts so far, and whether a later attempt is under way or owed, by the rule the
// daemon launches by. With `page = "last"` such a run's end pages nobody: the slot's last
// attempt does, listing every one.
import type { RetryPolicy } from "../../scheduler/config/fields.js";
import { isTerminal, type RunSummary } from "../../scheduler/ledger/events.js";
import type { RunLedger } from "../../scheduler/ledger/ledger.js";
import { attemptOf, owedRetry, slotAttempts } from "../../scheduler/retry/plan.js";
import type { Schedule } from "../../scheduler/schedules/schedule-file.js";
import { nextFireTime } from "../../scheduler/timing/planner.js";

/**
 * How long past its time an owed retry holds a page: a retry the daemon has not started by
 * then (it is down, or a `fire` without a daemon ran the slot) will not come.
 */
export const RETRY_GRACE_MS = 2 * 60_000;

export interface RetryFact {
  /** The run's attempt of its slot, and the attempts the schedule allows in all. */
  attempt: number;
  of: number;
  page: RetryPolicy["page"];
  /** A later attempt of the slot started, or is owed and due within the grace. */
  retried: boolean;
  /** A later attempt of the slot started: this fact never changes again. */
  final: boolean;
  /** The ledger has not closed the run yet, so whether it is retried is not known yet. */
  unsettled: boolean;
  /** Since when the monitor has seen it unsettled (epoch ms; set by the monitor's facts). */
  unsettledSince?: number;
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
 * not caught up) at `now`; undefined when its schedule does not retry.
 */
export function retryFact(
  ledger: Pick<RunLedger, "runIdsNewestFirst" | "summary">,
  schedule: Schedule | undefined,
  run: RunSummary,
  now: number,
): RetryFact | undefined {
  const policy = schedule?.retry;
  if (schedule === undefined || policy === undefined) return undefined;
  const attempts = slotAttempts(ledger, run);
  const attempt = attemptOf(run);
  const started = attempts.some((s) => attemptOf(s) > attempt && s.status !== "skipped");
  const unsettled = !isTerminal(run.status);
  const decision = unsettled
    ? undefined
    : owedRetry(policy, run, attempts, (slot) => nextFireTime(schedule, slot), now);
  const owed = decision?.kind === "retry" ? decision.plan : undefined;
  const fact: RetryFact = {
    attempt,
    of: policy.attempts,
    page: policy.page,
    retried: started || (owed !== undefined && now <= owed.at + RETRY_GRACE_MS),
    final: started,
    unsettled,
    attempts: attempts.map((s) => attemptLine(s, policy.attempts)),
  };
  if (owed !== undefined) fact.nextAt = new Date(owed.at).toISOString();
  return fact;
}
