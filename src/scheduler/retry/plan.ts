// Retries of a slot whose run failed (`retry` of a schedule): what class a run's end is, and
// whether and when its next attempt starts. Pure: the daemon launches by it, and the monitor
// holds a page by it, from the same ledger summary, so the two always agree, and a daemon
// that restarts finds a retry it owes without anything kept beside the ledger.
import { boundedInstant, parseInstant } from "../../util/instant.js";
import type { RetryClass, RetryPolicy } from "../config/fields.js";
import type { RunSummary } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";

/**
 * The longest wait an agent's `retry_after` gets on its own say: an hour, or the schedule's
 * own delay for that attempt when longer. A run is untrusted: "try again in 30 days" must not
 * hold its slot's failure page for a month.
 */
export const AGENT_RETRY_WAIT_CAP_MS = 3_600_000;

/**
 * The class of a run's end, or undefined for an end that is never retried: completed, a slot
 * skipped, a run an operator, `overlap = "replace"` or a shutdown stopped on purpose, a run a
 * hook suspended.
 */
export function retryClassOf(run: RunSummary): RetryClass | undefined {
  if (run.killedBy !== undefined && run.killedBy !== "timeout") return undefined;
  switch (run.status) {
    case "timed_out":
      return run.basis === "journal" ? "transient" : "timed_out";
    case "failed":
      // A hook suspended it: it waits for a human (`autoloop resume`), and another attempt
      // would only stop at the same hook.
      if (run.stopReason === "suspended") return undefined;
      if (run.stopReason === "rate_limited") return "rate_limited";
      if (run.stopReason === "transient_error" || run.stopReason === "backend_timeout")
        return "transient";
      return "failed";
    case "interrupted":
      // The harness journaled a SIGTERM or SIGINT (a shutdown, an operator): meant. A run
      // that crashed, or was lost with the daemon, is worth another try.
      return run.stopReason === "interrupted" ? undefined : "transient";
    default:
      return undefined;
  }
}

/** The attempt a run was of its slot (1 for the first run). */
export const attemptOf = (run: RunSummary): number => run.attempt ?? 1;

export interface RetryPlan {
  /** The attempt to start (2 for the first retry). */
  attempt: number;
  /** The slot's first run, which every attempt names as its parent. */
  parentRunId: string;
  /** The failed run this retries. */
  after: string;
  /** When to start it (epoch ms). */
  at: number;
  /** Why the run before it is retried. */
  cls: RetryClass;
}

export type RetryDecision =
  | { kind: "retry"; plan: RetryPlan }
  /** No retry: why not, in words for logs and alerts (absent: the end is not one to retry). */
  | { kind: "none"; why?: string };

/**
 * Whether the slot of `run` (terminal, the newest of its schedule) gets another attempt, and
 * when: a `rate_limited` run at the time its agent named (at most `AGENT_RETRY_WAIT_CAP_MS`
 * or the delay after its end), others after `delay` doubled for each retry before. A retry
 * that would start at or past the schedule's next slot is left to that slot, and a run whose
 * times cannot be read (outside 2000..2200) gets none: its end pages.
 */
export function retryDecision(
  policy: RetryPolicy | undefined,
  run: RunSummary,
  nextSlotAfter: (slot: Date) => Date | undefined,
): RetryDecision {
  const cls = retryClassOf(run);
  if (policy === undefined || cls === undefined || run.finishedAt === undefined)
    return { kind: "none" };
  // An attempt claimed and never started (its daemon died in between) was no try at all.
  const neverStarted = run.status === "interrupted" && run.startedAt === undefined;
  if (!policy.on.includes(cls) && !neverStarted)
    return { kind: "none", why: `retry.on does not name ${cls}` };
  const attempt = attemptOf(run);
  if (attempt >= policy.attempts)
    return { kind: "none", why: `that was the last of ${policy.attempts} attempts` };
  const ended = parseInstant(run.finishedAt);
  const slot = parseInstant(run.slot);
  if (ended === undefined || slot === undefined)
    return {
      kind: "none",
      why: `its end or slot time cannot be read (${run.finishedAt}, ${run.slot})`,
    };
  const at = boundedInstant(ended + waitAfter(policy, run, cls, ended));
  if (at === undefined) return { kind: "none", why: "its retry would start past the year 2200" };
  const next = nextSlotAfter(new Date(slot));
  if (next !== undefined && at >= next.getTime())
    return {
      kind: "none",
      why: `a retry at ${new Date(at).toISOString()} would not start before the next slot (${next.toISOString()}), which is left to run`,
    };
  const plan = {
    attempt: attempt + 1,
    parentRunId: run.parentRunId ?? run.runId,
    after: run.runId,
  };
  return { kind: "retry", plan: { ...plan, at, cls } };
}

/** How long after its end `run` is retried: its agent's word (capped) or the backoff. */
function waitAfter(policy: RetryPolicy, run: RunSummary, cls: RetryClass, ended: number): number {
  const backoff = policy.delayMs * 2 ** (attemptOf(run) - 1);
  const said = parseInstant(run.retryAfter);
  if (cls !== "rate_limited" || said === undefined) return backoff;
  return Math.min(Math.max(0, said - ended), Math.max(backoff, AGENT_RETRY_WAIT_CAP_MS));
}

/** Runs of the schedule looked at, newest first, for the attempts of one slot. */
const ATTEMPT_SCAN = 30;

/** The root of a run's slot: the first attempt, which every retry names as its parent. */
export const slotRoot = (run: RunSummary): string => run.parentRunId ?? run.runId;

/**
 * Every attempt of `run`'s slot the ledger has (skipped ones too), first attempt first. Retries
 * are the newest runs of their schedule, so the schedule's newest few runs hold them.
 */
export function slotAttempts(
  ledger: Pick<RunLedger, "runIdsNewestFirst" | "summary">,
  run: RunSummary,
): RunSummary[] {
  const root = slotRoot(run);
  const found: RunSummary[] = [];
  let seen = 0;
  for (const id of ledger.runIdsNewestFirst(run.schedule)) {
    if (seen++ >= ATTEMPT_SCAN) break;
    const s = id === run.runId ? run : ledger.summary(id);
    if (s !== undefined && slotRoot(s) === root) found.push(s);
    if (id === root) break;
  }
  if (!found.some((s) => s.runId === run.runId)) found.push(run);
  return found.sort((a, b) => attemptOf(a) - attemptOf(b));
}

/**
 * The retry owed for `run` at `now`, the one rule the daemon launches by and the monitor
 * holds a page by: what the policy calls for (`retryDecision`), for the newest attempt of its
 * slot (`attempts`), while the schedule's next slot has not come.
 */
export function owedRetry(
  policy: RetryPolicy | undefined,
  run: RunSummary,
  attempts: readonly RunSummary[],
  nextSlotAfter: (slot: Date) => Date | undefined,
  now: number,
): RetryDecision {
  if (attempts.some((a) => attemptOf(a) > attemptOf(run)))
    return { kind: "none", why: "a later attempt of its slot was made" };
  const decision = retryDecision(policy, run, nextSlotAfter);
  if (decision.kind === "none") return decision;
  const next = nextSlotAfter(new Date(run.slot)); // readable: retryDecision checked it
  if (next !== undefined && now >= next.getTime())
    return {
      kind: "none",
      why: `the next slot (${next.toISOString()}) has come: the retry is left to it`,
    };
  return decision;
}
