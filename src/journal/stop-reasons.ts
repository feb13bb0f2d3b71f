// `loop.stop` reasons and their outcome classes (docs/formats.md), shared by the harness,
// the scheduler and the monitor.

import { fieldText, type JournalRecord } from "./codec.js";

export type OutcomeClass = "completed" | "failed" | "stopped" | "interrupted";

const FAILED = new Set([
  "backend_failed",
  "backend_timeout",
  "auth_failed",
  "quota_exhausted",
  "review_unknown",
  "error",
]);
const STOPPED = new Set([
  "max_iterations",
  "rate_limited",
  "transient_error",
  "stalled",
  "max_runtime",
  "cost_budget",
  "token_budget",
  "verdict_unknown",
  // A hook with on_error = "suspend" failed: the run waits for `autoloop resume`.
  "suspended",
]);

/** The class of a `loop.stop` reason; unknown reasons count as failed (fail closed). */
export function stopReasonClass(reason: string): OutcomeClass {
  if (reason === "interrupted") return "interrupted";
  if (STOPPED.has(reason)) return "stopped";
  if (FAILED.has(reason)) return "failed";
  return "failed";
}

// A reason is a word; a run writes its journal, so anything else is text nobody should print
// (terminal escapes), post (an issue comment's mentions and links) or match against.
const REASON_WORD = /^[A-Za-z0-9_.:-]{0,64}$/;

/** What stands for a reason that is not a word. */
export const UNREADABLE_REASON = "unreadable_reason";

/** `reason` when it is a word (`max_iterations`, or empty), else `UNREADABLE_REASON`. */
export function stopReasonWord(reason: string): string {
  return REASON_WORD.test(reason) ? reason : UNREADABLE_REASON;
}

/** Exit codes of `autoloop run`, one per outcome class; usage errors are distinct. */
export const EXIT_CODES = {
  completed: 0,
  failed: 1,
  usage: 2,
  stopped: 3,
  interrupted: 130,
} as const;

export function exitCodeForClass(cls: OutcomeClass): number {
  return EXIT_CODES[cls];
}

/**
 * How a chain ended, from its `chain.complete` record: ours say `status`, the public
 * autoloop's `outcome` (`all_steps_complete`, `step_failed`); its words for success read as
 * "completed", for a failed step as "failed"; a record with neither field is a chain that
 * ended without saying otherwise.
 */
export function chainStatusOf(record: JournalRecord): string {
  const said = fieldText(record, "status") || fieldText(record, "outcome") || "completed";
  if (said === "step_failed") return "failed";
  return ["complete", "success", "succeeded", "all_steps_complete"].includes(said)
    ? "completed"
    : said;
}
