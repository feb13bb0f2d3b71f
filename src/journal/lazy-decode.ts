// The monitor's decoder for journals it follows. A line in the writer's own shape
// (docs/formats.md: run, iteration, topic, ts, v, then fields, or payload and source) has its
// envelope read from the bytes and its body (fields, payload) decoded and parsed only when
// asked for: the monitor reads the fields of a few records (loop.start, task.gate, the ends)
// and never the agents' output, which is most of a journal's bytes. Any line in another
// shape, or with an escape in the envelope, goes to decodeRecord whole.
import type { AgentRecord, FieldValue, JournalRecord, SystemRecord } from "./codec.js";
import { decodeRecord } from "./codec.js";
import type { ReadResult } from "./reader.js";

const NEWLINE = 10;
const CR = 13;
const QUOTE = 34;
const BACKSLASH = 92;
const CLOSE = 125;
const bytes = (text: string) => Buffer.from(text, "latin1");
const HEAD = bytes('{"run": "');
const ITERATION = bytes(', "iteration": "');
const TOPIC = bytes(', "topic": "');
const TS = bytes(', "ts": "');
const V = bytes(', "v": ');
const FIELDS = bytes(', "fields": {');
const PAYLOAD = bytes(', "payload": "');
const SOURCE = bytes(', "source": "');

function matches(buf: Buffer, at: number, expected: Buffer, end: number): boolean {
  if (at + expected.length > end) return false;
  for (let i = 0; i < expected.length; i++) if (buf[at + i] !== expected[i]) return false;
  return true;
}

/** The string whose first byte is at `start` (past its quote), up to its closing quote. */
function plain(
  buf: Buffer,
  start: number,
  end: number,
): { value: string; end: number } | undefined {
  let ascii = true;
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    if (b === QUOTE)
      return { value: buf.toString(ascii ? "latin1" : "utf8", start, i), end: i + 1 };
    // An escape, or a control character JSON does not allow raw: the general decoder decides.
    if (b === BACKSLASH || b < 0x20) return undefined;
    if (b >= 0x80) ascii = false;
  }
  return undefined;
}

/** Where a record's body is: its bytes, and the whole line for when the body will not parse. */
interface BodyRef {
  buf: Buffer;
  line: number;
  from: number;
  to: number;
  end: number;
}

/**
 * The body parsed; if it will not parse alone, the whole line through the general decoder,
 * and `fallback` if even that fails.
 */
function parseBody<T>(
  ref: BodyRef,
  ok: (v: unknown) => v is T,
  pick: (r: JournalRecord) => unknown,
  fallback: T,
): T {
  try {
    const value: unknown = JSON.parse(ref.buf.toString("utf8", ref.from, ref.to));
    if (ok(value)) return value;
  } catch {
    // the whole line, below
  }
  const record = decodeRecord(ref.buf.toString("utf8", ref.line, ref.end));
  const value = record === undefined ? undefined : pick(record);
  return ok(value) ? value : fallback;
}

const isObject = (v: unknown): v is Record<string, FieldValue> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";

// Records whose body is parsed on first use. Their getters live on the prototype, so spread
// or structuredClone would drop them: toJSON() gives a plain copy (the monitor only reads).
class LazySystemRecord implements SystemRecord {
  readonly shape = "system" as const;
  declare iteration?: string;
  #fields: Record<string, FieldValue> | undefined;
  #body: BodyRef | undefined;
  constructor(
    readonly run: string,
    readonly topic: string,
    readonly ts: string,
    readonly v: number,
    body: BodyRef,
  ) {
    this.#body = body;
  }
  get fields(): Record<string, FieldValue> {
    if (this.#fields === undefined) {
      this.#fields = parseBody(this.#body!, isObject, (r) => r.shape === "system" && r.fields, {});
      this.#body = undefined;
    }
    return this.#fields;
  }
  set fields(value: Record<string, FieldValue>) {
    this.#fields = value;
    this.#body = undefined;
  }
  toJSON(): SystemRecord {
    const { shape, run, topic, ts, v, fields, iteration } = this;
    return iteration === undefined
      ? { shape, run, topic, ts, v, fields }
      : { shape, run, iteration, topic, ts, v, fields };
  }
}

class LazyAgentRecord implements AgentRecord {
  readonly shape = "agent" as const;
  #payload: string | undefined;
  #body: BodyRef | undefined;
  constructor(
    readonly run: string,
    readonly iteration: string,
    readonly topic: string,
    readonly ts: string,
    readonly v: number,
    body: BodyRef,
    readonly source: string,
  ) {
    this.#body = body;
  }
  get payload(): string {
    if (this.#payload === undefined) {
      this.#payload = parseBody(this.#body!, isString, (r) => r.shape === "agent" && r.payload, "");
      this.#body = undefined;
    }
    return this.#payload;
  }
  set payload(value: string) {
    this.#payload = value;
    this.#body = undefined;
  }
  toJSON(): AgentRecord {
    const { shape, run, iteration, topic, ts, v, payload, source } = this;
    return { shape, run, iteration, topic, ts, v, payload, source };
  }
}

/** One line [start, end): a record, undefined when it is not one, null when blank. */
function decodeAt(
  buf: Buffer,
  start: number,
  end: number,
  /** Where the next record head after `start` begins (one search per chunk, in step). */
  nextHead: number,
): JournalRecord | undefined | null {
  const whole = () => {
    const line = buf.toString("utf8", start, end);
    return line.trim() === "" ? null : decodeRecord(line);
  };
  if (!matches(buf, start, HEAD, end) || buf[end - 1] !== CLOSE) return whole();
  const run = plain(buf, start + HEAD.length, end);
  if (run === undefined) return whole();
  let at = run.end;
  let iteration: string | undefined;
  if (matches(buf, at, ITERATION, end)) {
    const it = plain(buf, at + ITERATION.length, end);
    if (it === undefined) return whole();
    iteration = it.value;
    at = it.end;
  }
  if (!matches(buf, at, TOPIC, end)) return whole();
  const topic = plain(buf, at + TOPIC.length, end);
  if (topic === undefined || !matches(buf, topic.end, TS, end)) return whole();
  const ts = plain(buf, topic.end + TS.length, end);
  if (ts === undefined || !matches(buf, ts.end, V, end)) return whole();
  let v = 0;
  at = ts.end + V.length;
  const digits = at;
  for (; at < end && buf[at]! >= 48 && buf[at]! <= 57; at++) v = v * 10 + buf[at]! - 48;
  if (at === digits || at - digits > 9 || (buf[digits] === 48 && at - digits > 1)) return whole();
  // A torn line the next record was appended to: that record's head shows inside the line.
  if (nextHead < end) return whole();
  if (matches(buf, at, FIELDS, end)) {
    if (buf[end - 2] !== CLOSE) return whole(); // the fields object must end the record
    const body = { buf, line: start, from: at + FIELDS.length - 1, to: end - 1, end };
    const r = new LazySystemRecord(run.value, topic.value, ts.value, v, body);
    if (iteration !== undefined && iteration !== "") r.iteration = iteration;
    return r;
  }
  if (!matches(buf, at, PAYLOAD, end) || buf[end - 2] !== QUOTE) return whole();
  // The source is the last string: its opening quote is the last one before the closing one.
  const open = buf.lastIndexOf(QUOTE, end - 3);
  const tail = open + 1 - SOURCE.length;
  if (tail <= at || !matches(buf, tail, SOURCE, end) || buf[tail - 1] !== QUOTE) return whole();
  const source = plain(buf, open + 1, end);
  if (source === undefined || source.end !== end - 1) return whole();
  const body = { buf, line: start, from: at + PAYLOAD.length - 1, to: tail, end };
  return new LazyAgentRecord(
    run.value,
    iteration ?? "",
    topic.value,
    ts.value,
    v,
    body,
    source.value,
  );
}

/**
 * The records of the complete lines in `buf` (each ends with a newline; a CR before it is
 * dropped, blank lines are passed over); `skipped` counts lines that are not records.
 * The records' bodies refer to `buf` until read.
 */
export function decodeLines(buf: Buffer): ReadResult<JournalRecord> {
  const items: JournalRecord[] = [];
  let skipped = 0;
  let start = 0;
  // Record heads, found in step with the lines: one past a line's own start means a torn line
  // had the next record appended to it.
  let head = buf.indexOf(HEAD, 0);
  for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
    const end = nl > start && buf[nl - 1] === CR ? nl - 1 : nl;
    while (head !== -1 && head <= start) head = buf.indexOf(HEAD, head + 1);
    const record = decodeAt(buf, start, end, head === -1 ? buf.length : head);
    start = nl + 1;
    if (record === undefined) skipped++;
    else if (record !== null) items.push(record);
  }
  return { items, skipped };
}
