// Cron expressions, parsed once for everything that reads them: the planner's next match (on
// wall-clock time, UTC arithmetic), validation's messages and the exporters' field values.
//
// Standard (Vixie) cron semantics throughout. The syntax schedules use (numbers, names, `*`,
// `?`, ranges, lists, steps, nicknames) compiles to a compact table of bits with its own
// search: 100,000 distinct schedules stay small, where a croner instance per pattern would
// take far more memory. What the table does not cover (`L`, `W`, `#`, odd steps) is left to
// croner, which also words every syntax error.
import { Cron } from "croner";

/** The nicknames schedules may use, and the 5-field patterns they stand for. */
export const NICKNAMES: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

export const CRON_HINT =
  "a cron expression of 5 or 6 fields ([second] minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly";

/**
 * Vixie cron's rule: a day matches by day-of-month OR day-of-week only when neither field
 * starts with `*` (`*\/2` counts as a star); otherwise both must match. A `+` leading
 * day-of-week (croner's marker) asks for both as well.
 */
export function daysMatchEither(day: string, weekday: string): boolean {
  return !day.startsWith("*") && !weekday.startsWith("*") && !weekday.startsWith("+");
}

/** A pattern's fields as written: nickname expanded, `?` read as `*`, seconds first if given. */
function fieldsOf(pattern: string): string[] {
  let text = pattern.trim();
  if (text.startsWith("@")) text = NICKNAMES[text.toLowerCase()] ?? text;
  if (text.includes("?")) text = text.replaceAll("?", "*");
  return text.split(/\s+/);
}

/** The values each field allows, for translating a pattern to other schedulers. */
export interface CronFields {
  /** Undefined for a 5-field expression (it fires at second 0). */
  seconds: number[] | undefined;
  minutes: number[];
  hours: number[];
  days: number[];
  months: number[];
  /** 0 = Sunday … 6 = Saturday (a written 7 is Sunday too). */
  weekdays: number[];
  /** The fields as written (nickname expanded, `?` read as `*`), seconds first when present. */
  text: string[];
  dayMatch: "and" | "or";
}

/** A compiled pattern. */
export interface CronPattern {
  /** The first match strictly after `after` (whole seconds, wall-clock time), or null. */
  nextRun(after: Date): Date | null;
  /**
   * cron(8)'s "wildcard" job: `*` leads the minute or the hour field (`*`, `*\/15`,
   * `@hourly`). Named like cronie's MIN_STAR and HR_STAR flags, which decide how a job
   * treats a DST change.
   */
  readonly wildcard: boolean;
  /** Whether any date matches (`0 0 30 2 *` never does). */
  canMatch(): boolean;
  /** The values of each field; undefined for syntax beyond plain cron (`L`, `W`, `#`). */
  fields(): CronFields | undefined;
}

interface FieldRange {
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: FieldRange = { min: 0, max: 59 };
const MINUTE: FieldRange = { min: 0, max: 59 };
const HOUR: FieldRange = { min: 0, max: 23 };
const DAY: FieldRange = { min: 1, max: 31 };
const MONTH: FieldRange = {
  min: 1,
  max: 12,
  names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
};
// 0-7, both 0 and 7 meaning Sunday.
const WEEKDAY: FieldRange = {
  min: 0,
  max: 7,
  names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
};

/** Bits of one field: a 60-bit set kept as two 30-bit halves (JS bit operations are 32-bit). */
interface Bits {
  lo: number;
  hi: number;
}

function setBit(bits: Bits, n: number): void {
  if (n < 30) bits.lo |= 1 << n;
  else bits.hi |= 1 << (n - 30);
}

function hasBit(bits: Bits, n: number): boolean {
  return n < 30 ? (bits.lo & (1 << n)) !== 0 : (bits.hi & (1 << (n - 30))) !== 0;
}

/** The smallest set bit ≥ `from` (up to `max`), or -1. */
function nextBit(bits: Bits, from: number, max: number): number {
  for (let n = from; n <= max; n++) if (hasBit(bits, n)) return n;
  return -1;
}

function valuesOf(bits: Bits, min: number, max: number): number[] {
  const values: number[] = [];
  for (let n = min; n <= max; n++) if (hasBit(bits, n)) values.push(n);
  return values;
}

/** `text` as a number of one or two digits, or -1. */
function smallNumber(text: string): number {
  const a = text.charCodeAt(0) - 48;
  if (text.length === 1) return a >= 0 && a <= 9 ? a : -1;
  const b = text.charCodeAt(1) - 48;
  return text.length === 2 && a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function value(text: string, field: FieldRange): number | undefined {
  const n = smallNumber(text);
  if (n !== -1) return n >= field.min && n <= field.max ? n : undefined;
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  return index === -1 ? undefined : index + (field === MONTH ? 1 : 0);
}

/** One field's bits, or undefined for syntax the table does not cover (croner decides). */
function parseField(text: string, field: FieldRange): Bits | undefined {
  const bits: Bits = { lo: 0, hi: 0 };
  const set = (n: number) => setBit(bits, field === WEEKDAY && n === 7 ? 0 : n);
  if (text === "*") {
    for (let n = field.min; n <= field.max; n++) set(n);
    return bits;
  }
  const single = value(text, field);
  if (single !== undefined) {
    set(single);
    return bits;
  }
  for (const item of text.split(",")) {
    const [range, stepText, extra] = item.split("/");
    if (extra !== undefined || range === undefined) return undefined;
    let step = 1;
    if (stepText !== undefined) {
      step = smallNumber(stepText);
      // croner's limits on steps differ by field; such steps are rare, leave them to it.
      if (step < 1 || step > field.max - field.min) return undefined;
    }
    let from: number;
    let to: number;
    if (range === "*") {
      from = field.min;
      to = field.max;
    } else {
      const [a, b, more] = range.split("-");
      if (more !== undefined || a === undefined) return undefined;
      const start = value(a, field);
      // As croner reads it: SUN ending a range is 7 (`FRI-SUN` is 5-7; `SUN-SUN` every day).
      const sundayEnd = field === WEEKDAY && b?.toUpperCase() === "SUN";
      const end = b === undefined ? start : sundayEnd ? 7 : value(b, field);
      if (start === undefined || end === undefined || start > end) return undefined;
      // `5/15` (a number with a step) is refused by croner; so is it here.
      if (b === undefined && stepText !== undefined) return undefined;
      from = start;
      to = end;
    }
    for (let n = from; n <= to; n += step) set(n);
  }
  return bits;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) =>
  month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month]!;

/** Day of the week (0 = Sunday) of a proleptic Gregorian date, without a Date object. */
function weekday(year: number, month: number, day: number): number {
  // Sakamoto's method.
  const offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
  const y = month < 3 ? year - 1 : year;
  return (
    (y +
      Math.floor(y / 4) -
      Math.floor(y / 100) +
      Math.floor(y / 400) +
      offsets[month - 1]! +
      day) %
    7
  );
}

const ALL_WEEKDAYS = 0x7f;

/** Whether `*` leads the minute or hour field of a pattern's fields. */
function leadsWithStar(fields: string[]): boolean {
  const [minute, hour] = fields.length >= 6 ? [fields[1], fields[2]] : [fields[0], fields[1]];
  return (minute?.startsWith("*") ?? false) || (hour?.startsWith("*") ?? false);
}

/** A pattern of plain syntax: one bit per allowed value of each field. */
export class CronTable implements CronPattern {
  private constructor(
    private readonly seconds: Bits,
    private readonly minutes: Bits,
    private readonly hours: number,
    private readonly days: number,
    private readonly months: number,
    private readonly weekdays: number,
    private readonly dayOr: boolean,
    readonly wildcard: boolean,
    private readonly pattern: string,
  ) {}

  /** The table for `pattern`, or undefined when croner must handle it. */
  static compile(pattern: string): CronTable | undefined {
    const parts = fieldsOf(pattern);
    if (parts.length !== 5 && parts.length !== 6) return undefined;
    const six = parts.length === 5 ? ["0", ...parts] : parts;
    const [sec, min, hour, day, month, weekday] = six as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const s = parseField(sec, SECOND);
    const m = parseField(min, MINUTE);
    const h = parseField(hour, HOUR);
    const d = parseField(day, DAY);
    const mo = parseField(month, MONTH);
    const w = parseField(weekday.replace(/^\+/, ""), WEEKDAY);
    if (!s || !m || !h || !d || !mo || !w) return undefined;
    return new CronTable(
      s,
      m,
      h.lo,
      d.lo | (d.hi << 30),
      mo.lo,
      w.lo,
      daysMatchEither(day, weekday),
      leadsWithStar(parts),
      pattern,
    );
  }

  /**
   * A weekday comes round in every month, so only day-of-month ANDed with month can rule
   * everything out (`0 0 30 2 *`); February counts its 29th.
   */
  canMatch(): boolean {
    if (this.dayOr || this.days === 0) return this.days !== 0 || this.weekdays !== 0;
    for (let month = 1; month <= 12; month++) {
      if ((this.months & (1 << month)) === 0) continue;
      const last = month === 2 ? 29 : MONTH_DAYS[month]!;
      for (let day = 1; day <= last; day++) if ((this.days & (1 << day)) !== 0) return true;
    }
    return false;
  }

  fields(): CronFields {
    const text = fieldsOf(this.pattern);
    const bits = (n: number): Bits => ({ lo: n, hi: 0 });
    return {
      seconds: text.length === 6 ? valuesOf(this.seconds, 0, 59) : undefined,
      minutes: valuesOf(this.minutes, 0, 59),
      hours: valuesOf(bits(this.hours), 0, 23),
      days: valuesOf({ lo: this.days & 0x3fffffff, hi: this.days >>> 30 }, 1, 31),
      months: valuesOf(bits(this.months), 1, 12),
      weekdays: valuesOf(bits(this.weekdays), 0, 6),
      text,
      dayMatch: this.dayOr ? "or" : "and",
    };
  }

  /** The first matching day ≥ `from` in the month, or -1. */
  private nextDay(year: number, month: number, from: number): number {
    const last = daysIn(year, month);
    if (!this.dayOr && (this.weekdays & ALL_WEEKDAYS) === ALL_WEEKDAYS) {
      for (let day = from; day <= last; day++) if ((this.days & (1 << day)) !== 0) return day;
      return -1;
    }
    let dow = weekday(year, month, from);
    for (let day = from; day <= last; day++, dow = (dow + 1) % 7) {
      const byDate = (this.days & (1 << day)) !== 0;
      const byWeekday = (this.weekdays & (1 << dow)) !== 0;
      if (this.dayOr ? byDate || byWeekday : byDate && byWeekday) return day;
    }
    return -1;
  }

  nextRun(after: Date): Date | null {
    const start = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
    let year = start.getUTCFullYear();
    let month = start.getUTCMonth() + 1;
    let day = start.getUTCDate();
    let hour = start.getUTCHours();
    let minute = start.getUTCMinutes();
    let second = start.getUTCSeconds();
    // Every calendar repeats within 400 years; croner (and so validation) stops at 9999.
    const lastYear = Math.min(year + 400, 9999);
    const hours: Bits = { lo: this.hours, hi: 0 };
    while (year <= lastYear) {
      if ((this.months & (1 << month)) === 0) {
        month++;
        if (month > 12) [year, month] = [year + 1, 1];
        [day, hour, minute, second] = [1, 0, 0, 0];
        continue;
      }
      const d = day > daysIn(year, month) ? -1 : this.nextDay(year, month, day);
      if (d === -1) {
        month++;
        if (month > 12) [year, month] = [year + 1, 1];
        [day, hour, minute, second] = [1, 0, 0, 0];
        continue;
      }
      if (d !== day) [day, hour, minute, second] = [d, 0, 0, 0];
      const h = nextBit(hours, hour, 23);
      if (h === -1) {
        [day, hour, minute, second] = [day + 1, 0, 0, 0];
        continue;
      }
      if (h !== hour) [hour, minute, second] = [h, 0, 0];
      const m = nextBit(this.minutes, minute, 59);
      if (m === -1) {
        [hour, minute, second] = [hour + 1, 0, 0];
        if (hour > 23) [day, hour] = [day + 1, 0];
        continue;
      }
      if (m !== minute) [minute, second] = [m, 0];
      const s = nextBit(this.seconds, second, 59);
      if (s === -1) {
        [minute, second] = [minute + 1, 0];
        if (minute > 59) [hour, minute] = [hour + 1, 0];
        if (hour > 23) [day, hour] = [day + 1, 0];
        continue;
      }
      return new Date(Date.UTC(year, month - 1, day, hour, minute, s));
    }
    return null;
  }
}

// A fixed reference keeps validation independent of the current time.
const REFERENCE = new Date(Date.UTC(2000, 0, 1));

/** A pattern beyond the table's syntax, computed by croner. */
class CronerPattern implements CronPattern {
  readonly wildcard: boolean;
  private readonly cron: Cron;

  constructor(pattern: string) {
    this.cron = cronerReference(pattern);
    const text = pattern.trim().toLowerCase();
    this.wildcard = text.startsWith("@") ? text === "@hourly" : leadsWithStar(fieldsOf(text));
  }

  nextRun(after: Date): Date | null {
    return this.cron.nextRun(after);
  }

  canMatch(): boolean {
    return this.cron.nextRun(REFERENCE) !== null;
  }

  fields(): undefined {
    return undefined;
  }
}

/**
 * `pattern` rewritten so croner computes what standard cron would: `?` (Quartz "no value")
 * read as `*`, and croner's `+` (AND) marker added where the Vixie rule ANDs two restricted
 * day fields (croner would OR them when neither is exactly `*`).
 */
export function normalizePattern(pattern: string): string {
  const text = pattern.trim();
  if (text.startsWith("@")) return text.toLowerCase();
  const fields = text.replaceAll("?", "*").split(/\s+/);
  if (fields.length >= 5) {
    const [d, w] = [fields[fields.length - 3]!, fields[fields.length - 1]!];
    if (d !== "*" && w !== "*" && !daysMatchEither(d, w) && !w.startsWith("+"))
      fields[fields.length - 1] = `+${w}`;
  }
  return fields.join(" ");
}

/** croner computing `pattern` as standard cron, on wall-clock time; throws (croner's words). */
export function cronerReference(pattern: string): Cron {
  // utcOffset 0 keeps croner off its time zone path: zones are the planner's business.
  return new Cron(normalizePattern(pattern), {
    utcOffset: 0,
    paused: true,
    mode: "5-or-6-parts",
    domAndDow: false,
  });
}

// One compiled pattern per distinct text, shared by every schedule that has it. Tables are
// small; a croner instance holds arrays per field (tens of KB), so fewer of those are kept
// (one not kept is compiled again when asked: a fraction of a millisecond).
const TABLE_LIMIT = 1 << 18;
const CRONER_LIMIT = 1024;
const tables = new Map<string, CronTable>();
const croners = new Map<string, CronerPattern>();

/** Keeps `value` under `key` in `map`, emptying the map first when it holds `limit` entries. */
function keep<T>(map: Map<string, T>, limit: number, key: string, value: T): T {
  if (map.size >= limit) map.clear();
  map.set(key, value);
  return value;
}

/** The compiled form of `pattern`; throws (croner's words) on a bad one. */
export function compileCron(pattern: string): CronPattern {
  const known = tables.get(pattern) ?? croners.get(pattern);
  if (known !== undefined) return known;
  const table = CronTable.compile(pattern);
  return table !== undefined
    ? keep(tables, TABLE_LIMIT, pattern, table)
    : keep(croners, CRONER_LIMIT, pattern, new CronerPattern(pattern));
}

/** Why `pattern` is not a usable cron expression, or undefined when it is. */
export function cronProblem(pattern: string): string | undefined {
  const text = pattern.trim();
  if (text.startsWith("@") && NICKNAMES[text.toLowerCase()] === undefined) {
    return `unknown nickname; use one of ${Object.keys(NICKNAMES).join(", ")}`;
  }
  let cron: CronPattern;
  try {
    cron = compileCron(text);
  } catch (err) {
    return String((err as Error).message).replace(/^Cron\w*: /, "");
  }
  return cron.canMatch() ? undefined : "it never matches a date (check day and month)";
}
