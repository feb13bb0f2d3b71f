// Journal record types and the byte-exact codec of docs/formats.md ("Journal records").
//
// The writer produces `{"key": value, ...}` with `", "` / `": "` separators and escapes
// backslash, double quote and every control character below 0x20 as lower-case `\uXXXX`;
// everything else (non-ASCII included) stays raw UTF-8. The reader accepts any JSON line.

/** A value inside a system record's `fields`: strings mostly, a few booleans and numbers. */
export type FieldValue =
  | string
  | number
  | boolean
  | null
  | FieldValue[]
  | { [k: string]: FieldValue };

export interface SystemRecord {
  shape: "system";
  run: string;
  /** Omitted when empty, e.g. on `loop.start`. */
  iteration?: string;
  topic: string;
  ts: string;
  v: number;
  fields: Record<string, FieldValue>;
}

export interface AgentRecord {
  shape: "agent";
  run: string;
  iteration: string;
  topic: string;
  ts: string;
  v: number;
  payload: string;
  /** `agent`, or `harness` / `operator` for a few topics. */
  source: string;
}

export type JournalRecord = SystemRecord | AgentRecord;

const HEX = "0123456789abcdef";

function unicodeEscape(code: number): string {
  return `\\u${HEX[(code >> 12) & 15]}${HEX[(code >> 8) & 15]}${HEX[(code >> 4) & 15]}${HEX[code & 15]}`;
}

// Characters that must be escaped: `"`, `\`, C0 controls, and lone surrogates (which
// cannot be written as UTF-8 and would otherwise turn into U+FFFD).
const NEEDS_ESCAPE =
  /["\\\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Encodes a string as a JSON string literal in the journal's byte style. */
export function encodeString(value: string): string {
  return `"${value.replace(NEEDS_ESCAPE, (ch) => unicodeEscape(ch.charCodeAt(0)))}"`;
}

/** Encodes any JSON value in the journal's byte style (spaced separators). */
export function encodeValue(value: FieldValue | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return encodeString(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(encodeValue).join(", ")}]`;
  return encodeObject(value);
}

/** Encodes an object with keys in insertion order; `undefined` values are left out. */
export function encodeObject(obj: Record<string, FieldValue | undefined>): string {
  const parts: string[] = [];
  for (const [key, val] of Object.entries(obj)) {
    if (val === undefined) continue;
    parts.push(`${encodeString(key)}: ${encodeValue(val)}`);
  }
  return `{${parts.join(", ")}}`;
}

/** Encodes one record as a journal line, without the trailing newline. */
export function encodeRecord(record: JournalRecord): string {
  if (record.shape === "system") {
    return encodeObject({
      run: record.run,
      iteration: record.iteration === "" ? undefined : record.iteration,
      topic: record.topic,
      ts: record.ts,
      v: record.v,
      fields: record.fields,
    });
  }
  return encodeObject({
    run: record.run,
    // Omitted when empty, as the public autoloop writes it (operator guidance between runs).
    iteration: record.iteration === "" ? undefined : record.iteration,
    topic: record.topic,
    ts: record.ts,
    v: record.v,
    payload: record.payload,
    source: record.source,
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Decodes one journal line. Returns `undefined` for anything that is not a journal
 * record (torn line, garbage, JSON of another shape); callers count those.
 */
export function decodeRecord(line: string): JournalRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  const { topic } = parsed;
  // The public autoloop writes chain records as {"chain_run", "topic", "fields"}: no run.
  const run =
    parsed.run === undefined && typeof topic === "string" && topic.startsWith("chain.")
      ? parsed.chain_run
      : parsed.run;
  if (typeof run !== "string" || typeof topic !== "string") return undefined;
  const iteration = parsed.iteration === undefined ? undefined : String(parsed.iteration);
  const ts = typeof parsed.ts === "string" ? parsed.ts : "";
  const v = typeof parsed.v === "number" ? parsed.v : 1;
  if (typeof parsed.payload === "string" && !isPlainObject(parsed.fields)) {
    return {
      shape: "agent",
      run,
      iteration: iteration ?? "",
      topic,
      ts,
      v,
      payload: parsed.payload,
      source: typeof parsed.source === "string" ? parsed.source : "agent",
    };
  }
  const fields = isPlainObject(parsed.fields) ? (parsed.fields as Record<string, FieldValue>) : {};
  const record: SystemRecord = { shape: "system", run, topic, ts, v, fields };
  if (iteration !== undefined && iteration !== "") record.iteration = iteration;
  return record;
}

/** A string field of a system record, or "" (agent records and missing fields). */
export function fieldText(record: JournalRecord, name: string): string {
  if (record.shape !== "system") return "";
  const value = record.fields[name];
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * A non-negative number field of a system record, written as a JSON number (ours, the public
 * autoloop's `backend.usage`) or as a numeric string (`loop.stop` fields); else undefined.
 */
export function fieldNumber(record: JournalRecord, name: string): number | undefined {
  if (record.shape !== "system") return undefined;
  const value = record.fields[name];
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() !== ""
        ? Number(value)
        : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The current time as the journal writes it: ISO-8601 UTC with milliseconds. */
export function journalTimestamp(now: Date = new Date()): string {
  return now.toISOString();
}
