// Idempotency of slots: `slots.jsonl` records `<schedule>@<slot ISO>` → run id before any launch.
import { readFileSync } from "node:fs";
import { parseLines, splitLines } from "../../journal/reader.js";
import { slotOfRunId } from "./scheduled-run-id.js";

/** The idempotency key of one firing of one schedule. */
export function slotKey(schedule: string, slot: Date): string {
  return `${schedule}@${slot.toISOString()}`;
}

/** The idempotency key of an attempt of a slot: the slot's own for the first, `<key>#<n>` after. */
export function attemptKey(slotKey: string, attempt: number | undefined): string {
  return attempt === undefined || attempt <= 1 ? slotKey : `${slotKey}#${attempt}`;
}

/**
 * The schedule and slot an idempotency key names: `<schedule>@<slot ISO>`, with a repeat's
 * `~<ISO>` and an attempt's `#<n>`; a webhook delivery's `<schedule>@hook/<id>` has no slot in
 * it, so its run's id says it (the id carries its slot's minute).
 */
export function slotOfKey(
  key: string,
  runId: string,
): { schedule: string; slot: string; attempt?: number } {
  const attempt = /#(\d+)$/.exec(key)?.[1];
  const plain = key.replace(/#\d+$/, "").replace(/~.*$/, "");
  const hook = plain.indexOf("@hook/");
  const at = hook === -1 ? plain.lastIndexOf("@") : hook;
  const slot = {
    schedule: plain.slice(0, at),
    slot: hook === -1 ? plain.slice(at + 1) : (slotOfRunId(runId) ?? ""),
  };
  return attempt === undefined ? slot : { ...slot, attempt: Number(attempt) };
}

interface SlotLine {
  key: string;
  runId: string;
}

function decodeSlot(line: string): SlotLine | undefined {
  try {
    const v = JSON.parse(line) as Partial<SlotLine>;
    return typeof v.key === "string" && typeof v.runId === "string"
      ? { key: v.key, runId: v.runId }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Loads every claimed slot (missing file: none); a torn last line is simply not a claim. */
export function loadSlots(path: string): Map<string, string> {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw err;
  }
  const { lines, rest } = splitLines(buf);
  if (rest.length > 0) lines.push(rest.toString("utf8"));
  return new Map(parseLines(lines, decodeSlot).items.map((s) => [s.key, s.runId]));
}

export function encodeSlot(key: string, runId: string, ts: string): string {
  return JSON.stringify({ ts, key, runId });
}

/**
 * After the wall clock stepped back from `until` to `from`, the slots between come round
 * again: those of a schedule `repeats` names run again, under keys of their own
 * (`<key>~<until ISO>`); every other slot there stays taken, as it was.
 */
export class RepeatWindow {
  constructor(
    private readonly from: Date,
    private readonly until: Date,
    private readonly repeats: (schedule: string) => boolean,
  ) {}

  /** The key `run` claims under: `key`, or its repeat's when `key` is taken. */
  keyFor(
    key: string,
    run: { schedule: string; slot: Date },
    taken: (key: string) => boolean,
  ): string {
    const slot = run.slot.getTime();
    const inside = slot >= this.from.getTime() && slot <= this.until.getTime();
    return inside && taken(key) && this.repeats(run.schedule)
      ? `${key}~${this.until.toISOString()}`
      : key;
  }
}
