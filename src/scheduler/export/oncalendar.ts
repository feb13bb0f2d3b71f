// Cron expressions translated to systemd OnCalendar= specs in the schedule's time zone (pure).
//
// Known differences at DST changes: a wall time inside a spring-forward gap (02:30 on the
// night clocks jump 02:00 → 03:00) is skipped by systemd, while the autoloop-cron daemon fires
// it once at the end of the gap; at fall-back systemd fires a repeated wall time once, while
// the daemon runs wildcard jobs (`*` in the minute or hour field) in both passes, as cron(8).
import type { CronFields } from "../timing/cron.js";
import {
  DAY_RANGE,
  isFull,
  parseCronFields,
  type Translation,
  WEEKDAY_NAMES,
} from "./cron-fields.js";

export const ONCALENDAR_TARGET = "systemd OnCalendar";

/** The OnCalendar= value firing when `cron` fires in `timezone`, or why there is none. */
export function toOnCalendar(cron: string, timezone: string): Translation<string> {
  const last = lastDayOfMonth(cron);
  if (last.kind === "refused") return last;
  const parsed = parseCronFields(last.value.cron, ONCALENDAR_TARGET);
  if (parsed.kind === "refused") return parsed;
  const days = dayFilter(parsed.value);
  if (days.kind === "refused") return days;
  const f = parsed.value;
  const weekdays = renderWeekdays(days.value.weekdays);
  // systemd's "~01" counts from the end of the month: the last day, as cron's "L".
  const day = last.value.last ? "~01" : `-${renderValues(days.value.days, 1, 31)}`;
  const date = `*-${renderValues(f.months, 1, 12)}${day}`;
  const seconds = f.seconds === undefined ? "00" : renderValues(f.seconds, 0, 59);
  const time = `${renderValues(f.hours, 0, 23)}:${renderValues(f.minutes, 0, 59)}:${seconds}`;
  return { kind: "ok", value: `${weekdays}${date} ${time} ${timezone}` };
}

/**
 * Cron's `L` in day-of-month (the last day of the month), which OnCalendar writes `~01`:
 * the expression with `*` in its place, and whether it was there. With a weekday restriction
 * too, cron would fire on either, which OnCalendar cannot say: refused.
 */
function lastDayOfMonth(cron: string): Translation<{ cron: string; last: boolean }> {
  const fields = cron.trim().split(/\s+/);
  const day = fields.length >= 5 ? fields.length - 3 : -1;
  if (day < 0 || fields[day]!.toUpperCase() !== "L")
    return { kind: "ok", value: { cron, last: false } };
  const weekday = fields[fields.length - 1]!;
  if (weekday !== "*" && weekday !== "?") {
    return {
      kind: "refused",
      reason: `day-of-month "L" with day-of-week "${weekday}" fires on either in cron, which ${ONCALENDAR_TARGET} cannot express; split it into two schedules`,
    };
  }
  fields[day] = "*";
  return { kind: "ok", value: { cron: fields.join(" "), last: true } };
}

/**
 * The days OnCalendar must match. OnCalendar always requires both the weekday and the date to
 * match; cron's "either may match" only carries over when one side allows every day anyway.
 */
function dayFilter(f: CronFields): Translation<{ days: number[]; weekdays: number[] }> {
  if (f.dayMatch === "and") return { kind: "ok", value: { days: f.days, weekdays: f.weekdays } };
  if (isFull(f.days, DAY_RANGE.min, DAY_RANGE.max) || isFull(f.weekdays, 0, 6)) {
    return { kind: "ok", value: { days: range(1, 31), weekdays: range(0, 6) } };
  }
  const day = f.text[f.text.length - 3];
  const weekday = f.text[f.text.length - 1];
  return {
    kind: "refused",
    reason:
      `day-of-month "${day}" and day-of-week "${weekday}" are both restricted, so cron fires ` +
      "on days matching either one, while OnCalendar fires only on days matching both; " +
      "split it into two schedules, one restricting each field",
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const pad2 = (n: number) => String(n).padStart(2, "0");

/** Consecutive runs of sorted values as [first, last] pairs. */
function runs(values: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of values) {
    const last = out.at(-1);
    if (last !== undefined && v === last[1] + 1) last[1] = v;
    else out.push([v, v]);
  }
  return out;
}

/** The step between sorted values when they are evenly spaced, else undefined. */
function evenStep(values: number[]): number | undefined {
  const step = values[1]! - values[0]!;
  return values.every((v, i) => i === 0 || v - values[i - 1]! === step) ? step : undefined;
}

/** A numeric component: `*`, `a/step` (to the end), `a..b/step`, or a list of values and ranges. */
export function renderValues(values: number[], min: number, max: number): string {
  if (isFull(values, min, max)) return "*";
  const step = values.length >= 3 ? evenStep(values) : undefined;
  if (step !== undefined && step > 1) {
    const [first, last] = [values[0]!, values.at(-1)!];
    return last + step > max ? `${pad2(first)}/${step}` : `${pad2(first)}..${pad2(last)}/${step}`;
  }
  return runs(values)
    .map(([a, b]) => (b - a >= 2 ? `${pad2(a)}..${pad2(b)}` : range(a, b).map(pad2).join(",")))
    .join(",");
}

/** The weekday prefix ("Mon..Fri "), empty for every day. Monday first, as systemd counts. */
function renderWeekdays(weekdays: number[]): string {
  if (isFull(weekdays, 0, 6)) return "";
  const mondayFirst = weekdays.map((d) => (d === 0 ? 7 : d)).sort((a, b) => a - b);
  const name = (d: number) => WEEKDAY_NAMES[d % 7]!;
  const parts = runs(mondayFirst).map(([a, b]) =>
    b - a >= 2 ? `${name(a)}..${name(b)}` : range(a, b).map(name).join(","),
  );
  return `${parts.join(",")} `;
}
