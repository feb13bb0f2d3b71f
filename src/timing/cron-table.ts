// Cron patterns as compact bit tables with their own next-match search, on wall-clock time
// (UTC arithmetic). Covers the syntax schedules use (numbers, names, `*`, ranges, lists,
// steps); anything else (`L`, `W`, `#`, odd steps) is left to croner (cron-pattern.ts), which
// also words every error. A table is ~100 bytes, where a croner instance holds arrays per
// field: 100,000 distinct patterns cost a few MB and compile in well under a second.

/** What a compiled pattern offers: the first match strictly after an instant (whole seconds). */
export interface CronMatcher {
  nextRun(after: Date): Date | null;
}

interface Field {
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: Field = { min: 0, max: 59 };
const MINUTE: Field = { min: 0, max: 59 };
const HOUR: Field = { min: 0, max: 23 };
const DAY: Field = { min: 1, max: 31 };
const MONTH: Field = {
  min: 1,
  max: 12,
  names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
};
// 0-7, both 0 and 7 meaning Sunday.
const WEEKDAY: Field = { min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] };

const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
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

/** `text` as a number of one or two digits, or -1 (no regular expression: 100,000 patterns). */
function smallNumber(text: string): number {
  const a = text.charCodeAt(0) - 48;
  if (text.length === 1) return a >= 0 && a <= 9 ? a : -1;
  const b = text.charCodeAt(1) - 48;
  return text.length === 2 && a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function value(text: string, field: Field): number | undefined {
  const n = smallNumber(text);
  if (n !== -1) return n >= field.min && n <= field.max ? n : undefined;
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  return index === -1 ? undefined : index + (field === MONTH ? 1 : 0);
}

// Second and minute sets, shared between tables (never mutated once parsed): 100,000 distinct
// patterns hold a few hundred of them instead of two objects each.
const SHARED_BITS_LIMIT = 4096;
const sharedBits = new Map<string | number, Bits>();

function shared(bits: Bits): Bits {
  // A number for a set within one half (a single minute, every usual set of seconds).
  const key = bits.hi === 0 ? bits.lo : bits.lo === 0 ? -bits.hi : `${bits.lo}:${bits.hi}`;
  const known = sharedBits.get(key);
  if (known !== undefined) return known;
  if (sharedBits.size >= SHARED_BITS_LIMIT) sharedBits.clear();
  sharedBits.set(key, bits);
  return bits;
}

/** One field's bits, or undefined for syntax this table does not cover (croner decides). */
function parseField(text: string, field: Field): Bits | undefined {
  const bits: Bits = { lo: 0, hi: 0 };
  if (text === "*") {
    for (let n = field.min; n <= field.max; n++) setBit(bits, field === WEEKDAY && n === 7 ? 0 : n);
    return bits;
  }
  const n = smallNumber(text);
  if (n !== -1) {
    if (n < field.min || n > field.max) return undefined;
    setBit(bits, field === WEEKDAY && n === 7 ? 0 : n);
    return bits;
  }
  for (const item of text.split(",")) {
    const [range, stepText, extra] = item.split("/");
    if (extra !== undefined || range === undefined) return undefined;
    let step = 1;
    if (stepText !== undefined) {
      step = smallNumber(stepText);
      if (step === -1) return undefined;
      // croner's limits on steps differ by field; such steps are rare, leave them to it.
      if (step < 1 || step > field.max - field.min) return undefined;
    }
    let from: number;
    let to: number;
    if (range === "*") {
      if (text !== item) return undefined; // `*` inside a list: croner's business
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
    for (let n = from; n <= to; n += step) setBit(bits, field === WEEKDAY && n === 7 ? 0 : n);
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

/** A compiled pattern: one bit per allowed value of each field. */
export class CronTable implements CronMatcher {
  private constructor(
    private readonly seconds: Bits,
    private readonly minutes: Bits,
    private readonly hours: number,
    private readonly days: number,
    private readonly months: number,
    private readonly weekdays: number,
    /** Vixie cron's rule: day-of-month OR day-of-week when both are restricted, else AND. */
    private readonly dayOr: boolean,
  ) {}

  /** The table for a (normalized) pattern, or undefined when croner must handle it. */
  static compile(pattern: string): CronTable | undefined {
    // (A property lookup by a pattern would make V8 intern every pattern string first.)
    const text = pattern.startsWith("@") ? (NICKNAMES[pattern] ?? pattern) : pattern;
    const parts = text.split(" ");
    if (parts.length !== 5 && parts.length !== 6) return undefined;
    if (parts.length === 5) parts.unshift("0");
    const [sec, min, hour, day, month, weekday] = parts;
    // normalizePattern's `+` (croner's AND marker) on day-of-week: the fields are ANDed.
    const and = weekday!.startsWith("+");
    const weekdays = and ? weekday!.slice(1) : weekday!;
    const s = parseField(sec!, SECOND);
    const m = parseField(min!, MINUTE);
    const h = parseField(hour!, HOUR);
    const d = parseField(day!, DAY);
    const mo = parseField(month!, MONTH);
    const w = parseField(weekdays, WEEKDAY);
    if (!s || !m || !h || !d || !mo || !w) return undefined;
    const dayOr = !and && !day!.startsWith("*") && !weekdays.startsWith("*");
    return new CronTable(shared(s), shared(m), h.lo, d.lo | (d.hi << 30), mo.lo, w.lo, dayOr);
  }

  /**
   * Whether any date matches. A weekday comes round in every month, so only day-of-month
   * ANDed with month can rule everything out (`0 0 30 2 *`); February counts its 29th.
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
