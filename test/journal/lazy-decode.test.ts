// The monitor's lazy decoder gives the same records as decodeRecord, line for line, whatever
// the writer or the input: only when and how the body is parsed differs.
import { describe, expect, it } from "vitest";
import { decodeRecord, encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { decodeLines } from "../../src/journal/lazy-decode.js";
import { parseLines } from "../../src/journal/reader.js";

/** One line through the byte decoder: the record, or undefined when it is skipped. */
const decodeRecordLazy = (line: string) => decodeLines(Buffer.from(`${line}\n`)).items[0];

const plain = (r: JournalRecord | undefined) =>
  r === undefined ? undefined : (JSON.parse(JSON.stringify(r)) as JournalRecord);

const samples: JournalRecord[] = [
  {
    shape: "system",
    run: "r1",
    topic: "loop.start",
    ts: "2026-11-25T10:00:00.000Z",
    v: 1,
    fields: { preset: "demo", n: 3, nested: { a: [1, "x"] } },
  },
  {
    shape: "system",
    run: "r1",
    iteration: "2",
    topic: "task.gate",
    ts: "2026-11-25T10:00:01.000Z",
    v: 1,
    fields: { open_tasks: "task-1,task-2", blocked_topic: "task.complete" },
  },
  { shape: "system", run: "r1", iteration: "", topic: "loop.stop", ts: "t", v: 2, fields: {} },
  {
    shape: "agent",
    run: "r1",
    iteration: "3",
    topic: "build.done",
    ts: "t",
    v: 1,
    payload: 'quote " backslash \\ newline \n tab \t ünïcødé ✓ "source": "x"',
    source: "agent",
  },
  {
    shape: "agent",
    run: "r-ü",
    iteration: "",
    topic: "task.complete",
    ts: "t",
    v: 1,
    payload: "",
    source: "operator",
  },
  {
    shape: "agent",
    run: 'r"q',
    iteration: "1",
    topic: "x",
    ts: "t",
    v: 1,
    payload: "p",
    source: "agent",
  },
  {
    shape: "system",
    run: "r1",
    iteration: "1",
    topic: "top\\ic",
    ts: "t",
    v: 1,
    fields: { s: "a\u0001b" },
  },
];

describe("decodeLines", () => {
  it("decodes the writer's lines as decodeRecord does, body included", () => {
    for (const record of samples) {
      const line = encodeRecord(record);
      const lazy = decodeRecordLazy(line);
      expect(plain(lazy), line).toEqual(plain(decodeRecord(line)));
      expect(lazy?.shape === "system" ? lazy.fields : lazy?.payload).toEqual(
        record.shape === "system" ? record.fields : record.payload,
      );
    }
  });

  it("hands any other shape to decodeRecord: other key orders, numbers, garbage, torn lines", () => {
    const lines = [
      '{"topic": "loop.start", "run": "r", "ts": "t", "v": 1, "fields": {}}',
      '{"run": "r", "iteration": 4, "topic": "x", "ts": "t", "v": 1, "fields": {"a": "b"}}',
      '{"run":"r","topic":"x","ts":"t","v":1,"payload":"p","source":"agent"}',
      '{"chain_run": "c", "topic": "chain.start", "fields": {"name": "n"}}',
      '{"run": "r", "topic": "x", "ts": "t", "v": 1, "fields": {"a": "b"',
      '{"run": "r", "topic": "x", "ts": "t", "v": "one", "fields": {}}',
      "not json",
      "[1,2]",
      '{"run": "r", "topic": "x", "ts": "t", "v": 1, "payload": "p"}',
      // A torn loop.stop the next record was appended to; found by a review.
      '{"run": "r", "topic": "loop.stop", "ts": "t", "v": 1, "fields": {"reason": "comp{"run": "r", "topic": "x", "ts": "t", "v": 1, "fields": {}}',
      '{"run": "r", "topic": "x", "ts": "t", "v": 01, "fields": {}}',
      '{"run": "r\tx", "topic": "x", "ts": "t", "v": 1, "fields": {}}',
      '{"run": "r", "topic": "x", "ts": "t", "v": 1, "fields": {"a": "b"}, "extra": {"c": 1}}',
      '{"run": "r", "topic": "x", "ts": "t", "v": 1, "fields": {"a": "b"}, "extra": 1}',
    ];
    for (const line of lines)
      expect(plain(decodeRecordLazy(line)), line).toEqual(plain(decodeRecord(line)));
  });

  it("reads a chunk of lines as parseLines with decodeRecord does: CRs, blanks and garbage", () => {
    const lines = [
      ...samples.map(encodeRecord),
      "",
      "   ",
      "garbage",
      `${encodeRecord(samples[1]!)}\r`,
      '{"run": "r", "topic": "x", "ts": "t", "v": 1, "fields": {"a": "b"',
    ];
    const buf = Buffer.from(`${lines.join("\n")}\n`);
    const lazy = decodeLines(buf);
    const eager = parseLines(lines, decodeRecord);
    expect(lazy.skipped).toBe(eager.skipped);
    expect(lazy.items.map(plain)).toEqual(eager.items.map(plain));
  });

  it("keeps a body it cannot parse from throwing where it is read", () => {
    const r = decodeRecordLazy('{"run": "r", "topic": "x", "ts": "t", "v": 1, "fields": {"a": }}');
    expect(r?.shape === "system" && r.fields).toEqual({});
  });
});
