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
    if (b === BACKSLASH) return undefined; // an escape: the general decoder handles it
    if (b >= 0x80) ascii = false;
  }
  return undefined;
}

function parseBody<T>(
  buf: Buffer,
  from: number,
  to: number,
  fallback: T,
  ok: (v: unknown) => v is T,
): T {
  try {
    const value: unknown = JSON.parse(buf.toString("utf8", from, to));
    return ok(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

const isObject = (v: unknown): v is Record<string, FieldValue> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";

class LazySystemRecord implements SystemRecord {
  readonly shape = "system" as const;
  declare iteration?: string;
  #fields: Record<string, FieldValue> | undefined;
  #buf: Buffer | undefined;
  constructor(
    readonly run: string,
    readonly topic: string,
    readonly ts: string,
    readonly v: number,
    buf: Buffer,
    private readonly from: number,
    private readonly to: number,
  ) {
    this.#buf = buf;
  }
  get fields(): Record<string, FieldValue> {
    if (this.#fields === undefined) {
      this.#fields = parseBody(this.#buf!, this.from, this.to, {}, isObject);
      this.#buf = undefined;
    }
    return this.#fields;
  }
  set fields(value: Record<string, FieldValue>) {
    this.#fields = value;
    this.#buf = undefined;
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
  #buf: Buffer | undefined;
  constructor(
    readonly run: string,
    readonly iteration: string,
    readonly topic: string,
    readonly ts: string,
    readonly v: number,
    buf: Buffer,
    private readonly from: number,
    private readonly to: number,
    readonly source: string,
  ) {
    this.#buf = buf;
  }
  get payload(): string {
    if (this.#payload === undefined) {
      this.#payload = parseBody(this.#buf!, this.from, this.to, "", isString);
      this.#buf = undefined;
    }
    return this.#payload;
  }
  set payload(value: string) {
    this.#payload = value;
    this.#buf = undefined;
  }
  toJSON(): AgentRecord {
    const { shape, run, iteration, topic, ts, v, payload, source } = this;
    return { shape, run, iteration, topic, ts, v, payload, source };
  }
}

/** One line [start, end): a record, undefined when it is not one, null when blank. */
function decodeAt(buf: Buffer, start: number, end: number): JournalRecord | undefined | null {
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
  if (at === digits || at - digits > 9) return whole();
  if (matches(buf, at, FIELDS, end)) {
    const from = at + FIELDS.length - 1;
    const r = new LazySystemRecord(run.value, topic.value, ts.value, v, buf, from, end - 1);
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
  const from = at + PAYLOAD.length - 1;
  return new LazyAgentRecord(
    run.value,
    iteration ?? "",
    topic.value,
    ts.value,
    v,
    buf,
    from,
    tail,
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
  for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
    const end = nl > start && buf[nl - 1] === CR ? nl - 1 : nl;
    const record = decodeAt(buf, start, end);
    start = nl + 1;
    if (record === undefined) skipped++;
    else if (record !== null) items.push(record);
  }
  return { items, skipped };
}
