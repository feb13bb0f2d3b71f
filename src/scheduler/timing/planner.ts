// When schedules fire: next slot, slots in a range and missed slots to catch up, computed in
// each schedule's time zone from the compiled cron pattern. Time is always an argument.
import { type CronPattern, compileCron } from "./cron.js";
import { fireTimeOf } from "./jitter.js";
import { instantsOfWall, wallClockOf } from "./zone-clock.js";

/** What the planner needs of a schedule (a full `Schedule` satisfies it). */
export interface PlanSpec {
  name: string;
  cron: string;
  timezone: string;
  jitterMs: number;
}

export type CatchUpMode = "none" | "latest" | "all";
export interface CatchUpPolicy {
  mode: CatchUpMode;
  windowMs: number;
}

/** `catch_up = "all"` never launches more than this many missed slots at once. */
export const CATCH_UP_CAP = 100;

/** A slot's identity (idempotency key): schedule name and unjittered slot time in UTC. */
export function slotKey(name: string, slot: Date): string {
  return `${name}@${slot.toISOString()}`;
}

/**
 * The first slot strictly after `after`, or undefined when the pattern never fires again.
 *
 * Slots are wall-clock times in the schedule's zone, with cron(8)'s (Vixie, cronie) rules
 * for daylight-saving changes:
 * - at spring-forward, wall times inside the gap fire once, at the first instant after the
 *   gap, merged with a slot at that instant if there is one;
 * - at fall-back, a job at a fixed time (no `*` leading its minute or hour field) fires at
 *   the first occurrence of a repeated wall time only; a "wildcard" job (`*`, `*\/15` in the
 *   minute or hour field, `@hourly`) runs by the wall clock, so it fires in both passes of
 *   the repeated hour and every real interval gets its run.
 */
export function nextFireTime(spec: PlanSpec, after: Date): Date | undefined {
  const cron = compileCron(spec.cron);
  const first = searchWallClock(spec, cron, after);
  if (!cron.wildcard) return first;
  const second = secondPassSlot(spec, cron, after.getTime());
  if (second === undefined) return first;
  return first === undefined || second < first.getTime() ? new Date(second) : first;
}

/**
 * When an enabled schedule's next slot after `now` fires (its jitter added), as a daemon or a
 * CronJob's `fire` waits it; undefined for a disabled one or one with no slot to come.
 */
export function nextSlotFire(spec: PlanSpec & { enabled: boolean }, now: number): Date | undefined {
  if (!spec.enabled) return undefined;
  const slot = nextFireTime(spec, new Date(now));
  return slot && fireTimeOf(spec, slot);
}

/**
 * For a wildcard job while `after` lies in the first pass of a repeated (fall-back) hour:
 * the first slot of the second pass, which comes before any wall time past the repeat.
 */
function secondPassSlot(spec: PlanSpec, cron: CronPattern, afterMs: number): number | undefined {
  const here = instantsOfWall(wallClockOf(afterMs, spec.timezone), spec.timezone);
  if (here.kind !== "overlap" || afterMs >= here.transition) return undefined;
  const repeatStart = wallClockOf(here.transition, spec.timezone);
  const repeatEnd = repeatStart + (here.later - here.earlier);
  const next = cron.nextRun(new Date(repeatStart - 1000));
  if (next === null || next.getTime() >= repeatEnd) return undefined;
  const at = instantsOfWall(next.getTime(), spec.timezone);
  return at.kind === "overlap" && at.later > afterMs ? at.later : undefined;
}

/** The next slot by the wall clock from `after` on; repeated wall times per the job's kind. */
function searchWallClock(spec: PlanSpec, cron: CronPattern, after: Date): Date | undefined {
  const afterMs = after.getTime();
  let cursor = wallClockOf(afterMs, spec.timezone);
  // Each pass either returns or jumps past an overlap, so a few passes always suffice.
  for (let pass = 0; pass < 8; pass++) {
    const next = cron.nextRun(new Date(cursor));
    if (next === null) return undefined;
    const wall = next.getTime();
    const at = instantsOfWall(wall, spec.timezone);
    if (at.kind === "exact" && at.at > afterMs) return new Date(at.at);
    if (at.kind === "gap" && at.gapEnd > afterMs) return new Date(at.gapEnd);
    if (at.kind === "overlap") {
      if (at.earlier > afterMs) return new Date(at.earlier);
      // In the second pass of the repeated hour, a wildcard job runs by the wall clock.
      if (cron.wildcard && at.later > afterMs) return new Date(at.later);
      // `after` is inside the repeated hour: every wall time up to the end of the repeat
      // already had its first occurrence, so skip to the end of the repeat.
      const repeatEnd = at.transition + (at.later - at.earlier);
      cursor = Math.max(wall, wallClockOf(repeatEnd, spec.timezone) - 1);
      continue;
    }
    cursor = wall;
  }
  return undefined;
}

/** Slots in (fromExclusive, toInclusive], oldest first, at most `limit` of them. */
export function slotsBetween(
  spec: PlanSpec,
  fromExclusive: Date,
  toInclusive: Date,
  limit: number,
): Date[] {
  const slots: Date[] = [];
  let cursor: Date | undefined = fromExclusive;
  while (slots.length < limit) {
    cursor = nextFireTime(spec, cursor);
    if (cursor === undefined || cursor.getTime() > toInclusive.getTime()) break;
    slots.push(cursor);
  }
  return slots;
}

/** The newest `count` slots in (lowerExclusive, upperInclusive], oldest first, and whether older ones exist. */
export function newestSlots(
  spec: PlanSpec,
  lowerExclusive: number,
  upperInclusive: number,
  count: number,
): { slots: Date[]; more: boolean } {
  // Search backwards in chunks that double in length, so a per-second pattern over a long
  // window costs about as much as the slots it returns, and a daily one a dozen look-ups.
  const found: Date[] = [];
  let to = upperInclusive;
  for (let span = 60_000; to > lowerExclusive && found.length <= count; span *= 2) {
    const from = Math.max(lowerExclusive, to - span);
    const chunk = slotsBetween(spec, new Date(from), new Date(to), Number.POSITIVE_INFINITY);
    found.unshift(...chunk);
    to = from;
  }
  const more = found.length > count;
  return { slots: found.slice(Math.max(0, found.length - count)), more };
}

export type CatchUp = { slots: Date[]; capped: boolean };

/**
 * Missed slots to launch now, oldest first: slots after `lastKnownSlot` whose (jittered) fire
 * time has passed and whose slot time is within the window. With no known slot (a schedule
 * never seen before) nothing was missed. `capped` is set when `all` dropped older slots.
 */
export function catchUpSlots(
  spec: PlanSpec,
  lastKnownSlot: Date | undefined,
  now: Date,
  policy: CatchUpPolicy,
): CatchUp {
  if (policy.mode === "none" || lastKnownSlot === undefined) return { slots: [], capped: false };
  const nowMs = now.getTime();
  const lower = Math.max(lastKnownSlot.getTime(), nowMs - policy.windowMs - 1);
  const want = policy.mode === "latest" ? 1 : CATCH_UP_CAP;
  // Slots whose jittered fire time is still ahead belong to the fire queue, not catch-up;
  // they all lie within the last `jitterMs`, so fetching that many extra slots suffices.
  const due = (s: Date) => fireTimeOf(spec, s).getTime() <= nowMs;
  const recent = Math.max(lower, nowMs - spec.jitterMs);
  const pending =
    spec.jitterMs > 0
      ? slotsBetween(spec, new Date(recent), now, Number.POSITIVE_INFINITY).filter((s) => !due(s))
          .length
      : 0;
  const { slots, more } = newestSlots(spec, lower, nowMs, want + pending);
  const ready = slots.filter(due);
  const capped = policy.mode === "all" && (more || ready.length > want);
  return { slots: ready.slice(-want), capped };
}
