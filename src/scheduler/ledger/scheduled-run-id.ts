// Scheduler run ids: `<schedule>-<YYYYMMDD>T<HHMM>-<5 base36>`, path-safe and sortable per schedule.
import { customAlphabet } from "nanoid";

const BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz";
const randomSuffix = customAlphabet(BASE36, 5);

/**
 * The whole id is matched, so `runs show <id>` can build a file path from it without any
 * `/`, `..` or NUL sneaking in. The schedule part starts with a letter or digit.
 */
export const SCHEDULED_RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}-\d{8}T\d{4}-[0-9a-z]{5}$/;

/** True when `text` is a well-formed scheduler run id (and therefore safe in a path). */
export function isScheduledRunId(text: string): boolean {
  return SCHEDULED_RUN_ID_PATTERN.test(text);
}

/** Turns a schedule name into the id's prefix: unsafe characters become `-`, max 64 chars. */
export function scheduledRunIdPrefix(schedule: string): string {
  const slug = schedule.replace(/[^A-Za-z0-9_-]/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return (slug === "" ? "run" : slug).slice(0, 64);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** `YYYYMMDDTHHMM` of the slot in UTC. */
export function slotStamp(slot: Date): string {
  return (
    `${pad(slot.getUTCFullYear(), 4)}${pad(slot.getUTCMonth() + 1)}${pad(slot.getUTCDate())}` +
    `T${pad(slot.getUTCHours())}${pad(slot.getUTCMinutes())}`
  );
}

/** A new run id for `schedule` firing at `slot`; `random` is injectable for tests. */
export function newScheduledRunId(
  schedule: string,
  slot: Date,
  random: () => string = randomSuffix,
): string {
  return `${scheduledRunIdPrefix(schedule)}-${slotStamp(slot)}-${random()}`;
}

/** The slot minute a run id carries (`…-20261127T0200-…` → `2026-11-27T02:00:00.000Z`). */
export function slotOfRunId(runId: string): string | undefined {
  const m = /-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})-[0-9a-z]{5}$/.exec(runId);
  return m === null ? undefined : `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00.000Z`;
}
