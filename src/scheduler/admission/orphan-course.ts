// What becomes of a slot whose claimer died before recording its run (an orphaned claim): it
// runs late, as a slot missed while no daemon ran would, or the ledger records why it does not.
// Pure: the daemon gathers the facts.
import type { SkipCause } from "../ledger/events.js";
import type { CatchUpPolicy } from "../timing/planner.js";

export type OrphanCourse = { kind: "run" } | { kind: "skip"; cause: SkipCause; detail: string };

const DIED = "its claimer died before recording its run";

/**
 * `policy` is the schedule's `catch_up` (undefined: the schedule is gone); `latestSlot` the
 * slot of the schedule's newest run or skip in the ledger.
 */
export function orphanCourse(
  policy: CatchUpPolicy | undefined,
  slot: Date,
  now: Date,
  latestSlot: Date | undefined,
): OrphanCourse {
  if (policy === undefined)
    return { kind: "skip", cause: "config_error", detail: `${DIED}, and its schedule is gone` };
  if (policy.mode === "none")
    return { kind: "skip", cause: "catch_up", detail: `${DIED}; catch_up = "none"` };
  if (now.getTime() - slot.getTime() > policy.windowMs)
    return { kind: "skip", cause: "catch_up", detail: `${DIED}, longer ago than catch_up_window` };
  if (policy.mode === "latest" && latestSlot !== undefined && latestSlot > slot)
    return {
      kind: "skip",
      cause: "catch_up",
      detail: `${DIED}, and a later slot ran (catch_up = "latest" runs the newest missed slot only)`,
    };
  return { kind: "run" };
}
