// The daemon's look for orphaned slot claims (ledger/claim-retake.ts), at its start or takeover
// and again whenever a claim too young to judge then can be judged: each such slot runs as a
// catch-up run or is recorded as skipped, under its own key, so "the ledger says so".
import type { Logger } from "pino";
import type { SkipRecord } from "../admission/admission.js";
import { orphanCourse } from "../admission/orphan-course.js";
import type { OrphanedSlot, RunLedger } from "../ledger/ledger.js";
import { newScheduledRunId } from "../ledger/scheduled-run-id.js";
import type { Schedule } from "../schedules/schedule-file.js";

export interface OrphanContext {
  ledger: RunLedger;
  log: Logger;
  now(): number;
  schedule(name: string): Schedule | undefined;
  stopping(): boolean;
  /** The slot policy applied to the slot as a catch-up (the claim retakes it). */
  run(schedule: string, slot: Date): void;
  /** The slot recorded as skipped (the claim retakes it). */
  skip(record: SkipRecord): void;
}

/** Runs or skips every orphaned slot now; looks again when the next young claim is judged. */
export function recoverOrphans(ctx: OrphanContext): void {
  if (ctx.stopping()) return;
  const { orphaned, next } = ctx.ledger.orphanedSlots();
  const now = new Date(ctx.now());
  for (const orphan of orphaned)
    try {
      retake(ctx, orphan, now);
    } catch (err) {
      // One slot's failure is logged; the others are still retaken.
      ctx.log.error({ err, schedule: orphan.schedule }, "an orphaned slot could not be retaken");
    }
  if (next === undefined) return;
  // The margin has passed for that claim then; a little after, so it is judged orphaned.
  const timer = setTimeout(() => recoverOrphans(ctx), Math.max(0, next - ctx.now()) + 100);
  timer.unref();
}

/** One orphaned slot run as a catch-up, or skipped with the reason `catch_up` gives. */
function retake(ctx: OrphanContext, { schedule: name, slot, runId }: OrphanedSlot, now: Date) {
  const schedule = ctx.schedule(name);
  const latest = ctx.ledger.latestRun(name)?.slot;
  const latestSlot = latest === undefined ? undefined : new Date(latest);
  const course = orphanCourse(schedule?.catchUp, slot, now, latestSlot);
  const fields = { schedule: name, slot: slot.toISOString(), orphanedBy: runId };
  ctx.log.warn(
    { ...fields, course: course.kind },
    "a slot's claimer died before recording its run: retaking the slot",
  );
  if (course.kind === "run") ctx.run(name, slot);
  else {
    const { cause, detail } = course;
    const skipped = { runId: newScheduledRunId(name, slot), schedule: name, slot, cause, detail };
    ctx.skip({ ...skipped, trigger: "catch_up" });
  }
}
