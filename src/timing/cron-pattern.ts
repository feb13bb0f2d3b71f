// Cron expressions compiled into calculators that work on wall-clock time (UTC arithmetic),
// normalised to standard (Vixie) cron semantics and shared by pattern: compact bit tables
// (cron-table.ts) for the usual syntax, croner for the rest and for every error's wording.
import { Cron } from "croner";
import { LruMap } from "../util/lru-map.js";
import { type CronMatcher, CronTable } from "./cron-table.js";

// Croner gives every compiled pattern its own 10,000-entry year table (~80 KB, 0.1 ms to
// fill). Our patterns never restrict the year, so all those tables are identical: compiled
// instances share one table and are cached by pattern text, which makes 10,000 schedules
// cost a few MB instead of 800.
const CACHE_SIZE = 4096;
const cache = new LruMap<string, Cron>(CACHE_SIZE);
let sharedYears: unknown[] | undefined;

/** Points a compiled pattern's all-years table at the shared one; true when it could. */
export function shareYearTable(cron: Cron): boolean {
  const pattern = (
    cron as unknown as { _states?: { pattern?: { year?: unknown; starYear?: unknown } } }
  )._states?.pattern;
  if (pattern?.starYear !== true || !Array.isArray(pattern.year)) return false;
  sharedYears ??= pattern.year;
  pattern.year = sharedYears;
  return true;
}

const NICKNAMES = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];

/**
 * Rewrites a pattern so croner computes what standard cron would:
 * - `?` (Quartz "no value") means `*`; croner would treat `?` in day-of-month as every day
 *   and so OR it with the day-of-week field.
 * - Vixie cron ORs day-of-month and day-of-week only when neither field starts with `*`;
 *   `*\/2` counts as a star there, so such patterns get croner's `+` (AND) marker.
 */
export function normalizePattern(pattern: string): string {
  const text = pattern.trim();
  if (text.startsWith("@")) return text.toLowerCase();
  const fields = text.replaceAll("?", "*").split(/\s+/);
  const dom = fields.length - 3;
  const dow = fields.length - 1;
  if (fields.length >= 5 && dom >= 0) {
    const [d, w] = [fields[dom]!, fields[dow]!];
    const starred = (f: string) => f.startsWith("*") && f !== "*";
    if (d !== "*" && w !== "*" && !w.startsWith("+") && (starred(d) || starred(w))) {
      fields[dow] = `+${w}`;
    }
  }
  return fields.join(" ");
}

// Tables are small: one per distinct pattern, shared by every schedule that has it.
const TABLE_LIMIT = 1 << 18;
const tables = new Map<string, CronTable>();

/** A calculator for `pattern` evaluated on wall-clock time; throws (croner's words) on a bad one. */
export function compileCron(pattern: string): CronMatcher {
  // Looked up as written first: most patterns are already in normal form.
  const known = tables.get(pattern);
  if (known !== undefined) return known;
  // Digits, `*`, `,`, `-` and `/` in single-spaced fields: its table is that of its normal
  // form (which differs only by croner's `+` marker, and the table has its own rule for
  // that). Built without normalizing (a fifth of a 100,000-pattern load's compile time).
  // What the table cannot read this way it cannot read normalized either: croner's then.
  if (plainFieldCount(pattern) !== 0) {
    const plain = CronTable.compile(pattern);
    return plain === undefined
      ? compileWithCroner(normalizePattern(pattern))
      : keep(plain, pattern);
  }
  // The schedule's own string when already normal: the table's key is then not a second copy.
  const normal = normalizePattern(pattern);
  const key = normal === pattern ? pattern : normal;
  const table = (key === pattern ? undefined : tables.get(key)) ?? CronTable.compile(key);
  if (table === undefined) return compileWithCroner(key);
  return keep(table, key, pattern);
}

/** Keeps `table` under `key` and `alias` (emptying the cache first when it is full). */
function keep(table: CronTable, key: string, alias = key): CronTable {
  if (tables.size >= TABLE_LIMIT) tables.clear();
  tables.set(key, table);
  if (alias !== key) tables.set(alias, table);
  return table;
}

/**
 * Fields of digits, `*`, `,`, `-` and `/`, one space apart: how many (5 or 6), else 0 (any
 * other syntax or spacing, or another count).
 */
export function plainFieldCount(pattern: string): number {
  let spaces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    if (c === 32) {
      // No leading, trailing or double space.
      if (i === 0 || i === pattern.length - 1 || pattern.charCodeAt(i - 1) === 32) return 0;
      spaces++;
    } else if (!((c >= 48 && c <= 57) || c === 42 || c === 44 || c === 45 || c === 47)) {
      return 0;
    }
  }
  return spaces === 4 || spaces === 5 ? spaces + 1 : 0;
}

/** croner's calculator for a normalized pattern (LRU-cached); throws on a bad pattern. */
export function compileWithCroner(key: string): Cron {
  let cron = cache.get(key);
  if (cron === undefined) {
    // utcOffset 0 keeps croner off its Intl timezone path (35x slower); zone handling is ours.
    cron = new Cron(key, { utcOffset: 0, paused: true, mode: "5-or-6-parts", domAndDow: false });
    shareYearTable(cron);
    cache.set(key, cron);
  }
  return cron;
}

// A fixed reference keeps validation independent of the current time.
const REFERENCE = new Date(Date.UTC(2000, 0, 1));

/** Why `pattern` is not a usable cron expression, or undefined when it is. */
export function cronProblem(pattern: string): string | undefined {
  const text = pattern.trim();
  if (text.startsWith("@") && !NICKNAMES.includes(text.toLowerCase())) {
    return `unknown nickname; use one of ${NICKNAMES.join(", ")}`;
  }
  let cron: CronMatcher;
  try {
    cron = compileCron(text);
  } catch (err) {
    return String((err as Error).message).replace(/^Cron\w*: /, "");
  }
  if (cron instanceof CronTable)
    return cron.canMatch() ? undefined : "it never matches a date (check day and month)";
  if (cron.nextRun(REFERENCE) === null) return "it never matches a date (check day and month)";
  return undefined;
}

export const CRON_HINT =
  "a cron expression of 5 or 6 fields ([second] minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly";
