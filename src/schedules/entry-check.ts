// Checking a file's [[schedule]] entries: zod checks each distinct entry, and an entry that
// differs from one it already passed only in its name and cron gets those two checked alone.
//
// A fleet's files repeat one entry with a new name and time (1,000 nightly jobs: the same
// kind, command, project and policies). zod's whole pass costs ~6 µs an entry; the name's
// pattern and the cron's (cached) table cost a fraction of that. What an entry's other
// fields mean cannot depend on its name or cron (no rule of `scheduleEntry` reads them
// together), so one passing entry vouches for every entry with the same other fields.
// Every problem is still zod's own: a doubtful entry is always handed to zod.
import * as z from "zod";
import { isScheduleName } from "../config/fields.js";
import { cronProblem } from "../timing/cron.js";
import { type ScheduleEntry, scheduleEntry } from "./schedule-entry.js";

const entries = z.array(scheduleEntry);

/** What zod said of a list of entries: their outputs, or its error (paths from the list). */
export type EntriesChecked = ReturnType<typeof entries.safeParse>;

/** Keys of the other fields past which an entry is not remembered (a long objective). */
const MAX_KEY_LENGTH = 4096;

/** One file's entry checks (a new one per file and load: what it remembers dies with it). */
export class EntryChecks {
  /** zod's output for an entry, by the key of its fields other than name and cron. */
  readonly #passed = new Map<string, ScheduleEntry>();
  /** Entries passed as repeats of one zod passed, without zod. */
  repeats = 0;

  /** `raw` entries checked as zod's `z.array(scheduleEntry)` would check them. */
  check(raw: readonly unknown[]): EntriesChecked {
    const data: ScheduleEntry[] = new Array(raw.length);
    // Entries zod must see now (the first of their kind), and repeats of one of those, which
    // wait for its verdict. On any refusal zod checks them all, so its issues are complete.
    const first: number[] = [];
    const waiting: number[] = [];
    const keys: (string | undefined)[] = new Array(raw.length);
    const firstOfKey = new Set<string>();
    for (let i = 0; i < raw.length; i++) {
      const key = otherFieldsKey(raw[i]);
      keys[i] = key;
      if (key !== undefined && this.#repeat(raw[i], key, data, i)) continue;
      if (key !== undefined && firstOfKey.has(key)) waiting.push(i);
      else {
        if (key !== undefined) firstOfKey.add(key);
        first.push(i);
      }
    }
    let checked = this.#zod(raw, first, data);
    if (checked !== undefined) {
      if (waiting.length === 0) return checked;
      return this.#zod(
        raw,
        [...first, ...waiting].sort((a, b) => a - b),
        data,
      )!;
    }
    for (const i of first) {
      const key = keys[i];
      if (key !== undefined && !this.#passed.has(key)) this.#passed.set(key, data[i]!);
    }
    const refused = waiting.filter((i) => !this.#repeat(raw[i], keys[i]!, data, i));
    checked = this.#zod(raw, refused, data);
    return checked ?? ({ success: true, data } as EntriesChecked);
  }

  /** Fills data[i] when `entry` repeats an entry zod passed, with a good name and cron. */
  #repeat(entry: unknown, key: string, data: ScheduleEntry[], i: number): boolean {
    const passed = this.#passed.get(key);
    if (passed === undefined) return false;
    const { name, cron } = entry as { name: unknown; cron: unknown };
    if (!nameAndCronPass(name, cron)) return false;
    data[i] = { ...passed, name: name as string, cron: cron as string };
    this.repeats++;
    return true;
  }

  /** zod's check of raw[at...]: fills data and returns undefined, or returns its refusal. */
  #zod(raw: readonly unknown[], at: number[], data: ScheduleEntry[]): EntriesChecked | undefined {
    if (at.length === 0) return undefined;
    const checked = entries.safeParse(at.map((i) => raw[i]));
    if (!checked.success) {
      for (const issue of checked.error.issues) issue.path[0] = at[issue.path[0] as number]!;
      return checked;
    }
    for (let j = 0; j < at.length; j++) data[at[j]!] = checked.data[j]!;
    return undefined;
  }
}

function nameAndCronPass(name: unknown, cron: unknown): boolean {
  return (
    typeof name === "string" &&
    isScheduleName(name) &&
    typeof cron === "string" &&
    cronProblem(cron) === undefined
  );
}

/**
 * A text that tells apart every two entries whose fields other than `name` and `cron` differ
 * (by key, order or value), or undefined for an entry with a value it does not spell out
 * (a TOML date, a non-plain object) or without a string name and cron: zod checks those.
 */
export function otherFieldsKey(entry: unknown): string | undefined {
  if (!isPlainObject(entry)) return undefined;
  const { name, cron } = entry as { name?: unknown; cron?: unknown };
  if (typeof name !== "string" || typeof cron !== "string") return undefined;
  let key = "";
  for (const field of Object.keys(entry)) {
    if (field === "name" || field === "cron") continue;
    const value = valueKey((entry as Record<string, unknown>)[field]);
    if (value === undefined) return undefined;
    key += `${JSON.stringify(field)}:${value},`;
    if (key.length > MAX_KEY_LENGTH) return undefined;
  }
  return key;
}

function valueKey(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      // String() spells NaN and ±Infinity apart, but not -0.
      return Object.is(value, -0) ? "-0" : `${value}`;
    case "object":
      break;
    default:
      return undefined;
  }
  let key: string;
  if (Array.isArray(value)) {
    key = "[";
    for (const item of value) {
      const k = valueKey(item);
      if (k === undefined) return undefined;
      key += `${k},`;
    }
    return `${key}]`;
  }
  if (!isPlainObject(value)) return undefined;
  key = "{";
  for (const field of Object.keys(value)) {
    const k = valueKey((value as Record<string, unknown>)[field]);
    if (k === undefined) return undefined;
    key += `${JSON.stringify(field)}:${k},`;
  }
  return `${key}}`;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
