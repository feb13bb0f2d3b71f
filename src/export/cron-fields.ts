// Cron expressions taken apart into the values each field allows, so they can be rewritten for
// other schedulers (systemd OnCalendar, Kubernetes CronJob); refuses what those cannot express.

/** A translation outcome: the rewritten form, or why the expression cannot be carried over. */
export type Translation<T> = { kind: "ok"; value: T } | { kind: "refused"; reason: string };

export interface CronFields {
  /** Undefined for a 5-field expression (it fires at second 0). */
  seconds: number[] | undefined;
  minutes: number[];
  hours: number[];
  days: number[];
  months: number[];
  /** 0 = Sunday … 6 = Saturday (a written 7 is Sunday too). */
  weekdays: number[];
  /** The fields as written (nicknames expanded, `?` read as `*`), seconds first when present. */
  text: string[];
  /**
   * How day-of-month and day-of-week combine in autoloop-cron's planner (Vixie cron): either
   * may match ("or") only when neither field starts with `*` and day-of-week has no `+`.
   */
  dayMatch: "and" | "or";
}

/** The 5-field equivalents of the nicknames the planner accepts. */
export const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

interface FieldSpec {
  label: string;
  min: number;
  max: number;
  names?: string[];
  /** Value of names[0]. */
  nameBase?: number;
}

const SECOND: FieldSpec = { label: "second", min: 0, max: 59 };
const MINUTE: FieldSpec = { label: "minute", min: 0, max: 59 };
const HOUR: FieldSpec = { label: "hour", min: 0, max: 23 };
const DAY: FieldSpec = { label: "day-of-month", min: 1, max: 31 };
const MONTH: FieldSpec = { label: "month", min: 1, max: 12, names: MONTHS, nameBase: 1 };
const WEEKDAY: FieldSpec = { label: "day-of-week", min: 0, max: 7, names: WEEKDAYS, nameBase: 0 };

const ITEM = /^(\*|[a-z0-9]+)(?:-([a-z0-9]+))?(?:\/(\d+))?$/;

/** Why a specifier cannot be carried over, named for the target (e.g. "systemd OnCalendar"). */
function specifierProblem(field: string, spec: FieldSpec, target: string): string | undefined {
  const upper = field.toUpperCase();
  const what =
    spec === DAY && upper.includes("L")
      ? '"L" (last day of the month)'
      : spec === DAY && upper.includes("W")
        ? '"W" (nearest weekday)'
        : spec === WEEKDAY && upper.includes("#")
          ? '"#" (nth weekday of the month)'
          : spec === WEEKDAY && upper.includes("L")
            ? '"L" (last weekday of the month)'
            : undefined;
  return what && `${spec.label} "${field}" uses ${what}, which ${target} cannot express`;
}

function value(token: string, spec: FieldSpec): number | undefined {
  const named = spec.names?.indexOf(token.toLowerCase()) ?? -1;
  const n = named >= 0 ? named + spec.nameBase! : /^\d+$/.test(token) ? Number(token) : Number.NaN;
  return n >= spec.min && n <= spec.max ? n : undefined;
}

/** One comma-separated item as a stepped range, or undefined when it is not plain syntax. */
function itemRange(
  item: string,
  spec: FieldSpec,
): { from: number; to: number; step: number } | undefined {
  const m = ITEM.exec(item);
  if (m === null) return undefined;
  const [, start, end, stepText] = m;
  const step = stepText === undefined ? 1 : Number(stepText);
  if (step < 1) return undefined;
  if (start === "*") return end === undefined ? { from: spec.min, to: spec.max, step } : undefined;
  const from = value(start!, spec);
  // "5/15" runs from 5 to the end of the field, as in croner and Vixie cron.
  const to = end !== undefined ? value(end, spec) : stepText !== undefined ? spec.max : from;
  if (from === undefined || to === undefined || from > to) return undefined;
  return { from, to, step };
}

/** The sorted values a field allows, or why it cannot be read. */
function expandField(field: string, spec: FieldSpec, target: string): Translation<number[]> {
  const special = specifierProblem(field, spec, target);
  if (special !== undefined) return { kind: "refused", reason: special };
  const found = new Set<number>();
  for (const item of field.toLowerCase().split(",")) {
    const range = itemRange(item, spec);
    if (range === undefined) {
      return { kind: "refused", reason: `${spec.label} "${field}" is not plain cron syntax` };
    }
    for (let v = range.from; v <= range.to; v += range.step) {
      found.add(spec === WEEKDAY && v === 7 ? 0 : v);
    }
  }
  return { kind: "ok", value: [...found].sort((a, b) => a - b) };
}

/** Splits and expands `expr` (5 or 6 fields, or a nickname); `target` names who must read it. */
export function parseCronFields(expr: string, target: string): Translation<CronFields> {
  const trimmed = expr.trim();
  const text = (NICKNAMES[trimmed.toLowerCase()] ?? trimmed).replaceAll("?", "*").split(/\s+/);
  if (text.length !== 5 && text.length !== 6) {
    return { kind: "refused", reason: "it has neither 5 nor 6 fields" };
  }
  const hasSeconds = text.length === 6;
  const specs = hasSeconds
    ? [SECOND, MINUTE, HOUR, DAY, MONTH, WEEKDAY]
    : [MINUTE, HOUR, DAY, MONTH, WEEKDAY];
  const sets: number[][] = [];
  for (const [i, spec] of specs.entries()) {
    // A leading `+` on day-of-week is croner's "AND with day-of-month" marker.
    const field = spec === WEEKDAY ? text[i]!.replace(/^\+/, "") : text[i]!;
    const r = expandField(field, spec, target);
    if (r.kind === "refused") return r;
    sets.push(r.value);
  }
  const [minutes, hours, days, months, weekdays] = hasSeconds ? sets.slice(1) : sets;
  const day = text[text.length - 3]!;
  const weekday = text[text.length - 1]!;
  const and = day.startsWith("*") || weekday.startsWith("*") || weekday.startsWith("+");
  return {
    kind: "ok",
    value: {
      seconds: hasSeconds ? sets[0] : undefined,
      minutes: minutes!,
      hours: hours!,
      days: days!,
      months: months!,
      weekdays: weekdays!,
      text,
      dayMatch: and ? "and" : "or",
    },
  };
}

/** True when `values` is every value from `min` to `max`. */
export function isFull(values: number[], min: number, max: number): boolean {
  return values.length === max - min + 1;
}

export const DAY_RANGE = { min: 1, max: 31 } as const;
export const WEEKDAY_NAMES = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
