// A schedule's cron expression as field values for other schedulers (systemd OnCalendar,
// Kubernetes CronJob), from the one cron parser; refuses what those cannot express.
import { type CronFields, compileCron } from "../timing/cron.js";

/** A translation outcome: the rewritten form, or why the expression cannot be carried over. */
export type Translation<T> = { kind: "ok"; value: T } | { kind: "refused"; reason: string };

/** Why a specifier cannot be carried over, named for the target (e.g. "systemd OnCalendar"). */
function specifierProblem(fields: string[], target: string): string | undefined {
  const day = fields[fields.length - 3] ?? "";
  const weekday = fields[fields.length - 1] ?? "";
  const [label, field, what] = /L/i.test(day)
    ? ["day-of-month", day, '"L" (last day of the month)']
    : /W/i.test(day)
      ? ["day-of-month", day, '"W" (nearest weekday)']
      : weekday.includes("#")
        ? ["day-of-week", weekday, '"#" (nth weekday of the month)']
        : /L/i.test(weekday)
          ? ["day-of-week", weekday, '"L" (last weekday of the month)']
          : [];
  return what && `${label} "${field}" uses ${what}, which ${target} cannot express`;
}

/** The values of each field of `expr` (a valid schedule's); `target` names who must read it. */
export function parseCronFields(expr: string, target: string): Translation<CronFields> {
  const fields = expr.trim().split(/\s+/);
  if (!expr.trim().startsWith("@") && fields.length !== 5 && fields.length !== 6) {
    return { kind: "refused", reason: "it has neither 5 nor 6 fields" };
  }
  let parsed: CronFields | undefined;
  try {
    parsed = compileCron(expr).fields();
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) return { kind: "ok", value: parsed };
  const reason = specifierProblem(fields, target) ?? `"${expr.trim()}" is not plain cron syntax`;
  return { kind: "refused", reason };
}

/** True when `values` is every value from `min` to `max`. */
export function isFull(values: number[], min: number, max: number): boolean {
  return values.length === max - min + 1;
}

export const DAY_RANGE = { min: 1, max: 31 } as const;
export const WEEKDAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
