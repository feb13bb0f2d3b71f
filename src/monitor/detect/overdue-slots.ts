// Slots whose run never came, for a monitor with no daemon in its process (Kubernetes
// CronJobs, systemd timers): each schedule's next slot after its newest run is expected
// within its grace (Healthchecks' "period + grace"); past that, it is missed.
import { nextFireTime, type PlanSpec } from "../../scheduler/timing/planner.js";

export interface ExpectedSlot {
  /** The newest run's slot (or when the monitor began watching): the next slot is due after it. */
  reference: number;
  /** That next slot, unjittered; undefined when the pattern never fires again. */
  slot: number | undefined;
}

/** The slot due after `reference`, reusing `known` while the reference did not move. */
export function expectedSlot(
  spec: PlanSpec,
  reference: number,
  known: ExpectedSlot | undefined,
): ExpectedSlot {
  if (known !== undefined && known.reference === reference) return known;
  return { reference, slot: nextFireTime(spec, new Date(reference))?.getTime() };
}

/** True once the slot, its jitter and the grace have all passed without a run. */
export function isOverdue(
  expected: ExpectedSlot,
  spec: PlanSpec,
  graceMs: number,
  now: number,
): boolean {
  return expected.slot !== undefined && now >= expected.slot + spec.jitterMs + graceMs;
}
