// The monitor's decoder for journals it follows: a line in the writer's own shape
// (docs/formats.md: run, iteration, topic, ts, v, then fields or payload and source) has its
// envelope read by scanning and its body (fields, payload) parsed only when asked for. The
// monitor reads a few records' fields (loop.start, task.gate, ends); most records are agent
// output it never looks into, and parsing their bodies was most of a first pass's time.
// Any line in another shape goes to decodeRecord, as does any string with an escape in it.
import type { AgentRecord, FieldValue, JournalRecord, SystemRecord } from "./codec.js";
import { decodeRecord } from "./codec.js";

const HEAD = '{"run": "';
const QUOTE = 34;
const BACKSLASH = 92;
const CLOSE = 125;

/** The string starting at `start` (just past its opening quote) and the index past its end. */
function plain(line: string, start: number): { value: string; end: number } | undefined {
  const q = line.indexOf('"', start);
  if (q === -1) return undefined;
  // An escape inside: the general decoder handles it.
  for (let i = start; i < q; i++) if (line.charCodeAt(i) === BACKSLASH) return undefined;
  return { value: line.slice(start, q), end: q + 1 };
}

function parseBody<T>(text: string, fallback: T, accept: (v: unknown) => v is T): T {
  try {
    const value: unknown = JSON.parse(text);
    return accept(value) ? value : fallback;
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
  constructor(
    readonly run: string,
    readonly topic: string,
    readonly ts: string,
    readonly v: number,
    private readonly body: string,
  ) {}
  get fields(): Record<string, FieldValue> {
    this.#fields ??= parseBody(this.body, {}, isObject);
    return this.#fields;
  }
  set fields(value: Record<string, FieldValue>) {
    this.#fields = value;
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
  constructor(
    readonly run: string,
    readonly iteration: string,
    readonly topic: string,
    readonly ts: string,
    readonly v: number,
    private readonly body: string,
    readonly source: string,
  ) {}
  get payload(): string {
    this.#payload ??= parseBody(this.body, "", isString);
    return this.#payload;
  }
  set payload(value: string) {
    this.#payload = value;
  }
  toJSON(): AgentRecord {
    const { shape, run, iteration, topic, ts, v, payload, source } = this;
    return { shape, run, iteration, topic, ts, v, payload, source };
  }
}

/** decodeRecord's result, with the body parsed on first use for lines in the writer's shape. */
export function decodeRecordLazy(line: string): JournalRecord | undefined {
  if (!line.startsWith(HEAD) || line.charCodeAt(line.length - 1) !== CLOSE)
    return decodeRecord(line);
  const run = plain(line, HEAD.length);
  if (run === undefined) return decodeRecord(line);
  let at = run.end;
  let iteration: string | undefined;
  if (line.startsWith(', "iteration": "', at)) {
    const it = plain(line, at + 16);
    if (it === undefined) return decodeRecord(line);
    iteration = it.value;
    at = it.end;
  }
  if (!line.startsWith(', "topic": "', at)) return decodeRecord(line);
  const topic = plain(line, at + 12);
  if (topic === undefined || !line.startsWith(', "ts": "', topic.end)) return decodeRecord(line);
  const ts = plain(line, topic.end + 9);
  if (ts === undefined || !line.startsWith(', "v": ', ts.end)) return decodeRecord(line);
  const comma = line.indexOf(",", ts.end + 7);
  const v = Number(line.slice(ts.end + 7, comma));
  if (comma === -1 || !Number.isInteger(v)) return decodeRecord(line);
  if (line.startsWith(' "fields": {', comma + 1)) {
    const r = new LazySystemRecord(run.value, topic.value, ts.value, v, line.slice(comma + 11, -1));
    if (iteration !== undefined && iteration !== "") r.iteration = iteration;
    return r;
  }
  const SOURCE = ', "source": "';
  const tail = line.lastIndexOf(SOURCE);
  if (!line.startsWith(' "payload": "', comma + 1) || tail < comma) return decodeRecord(line);
  const source = plain(line, tail + SOURCE.length);
  if (source === undefined || source.end !== line.length - 1) return decodeRecord(line);
  if (line.charCodeAt(tail - 1) !== QUOTE) return decodeRecord(line);
  const body = line.slice(comma + 12, tail);
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
