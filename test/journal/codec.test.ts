import { describe, expect, it } from "vitest";
import { decodeRecord, encodeRecord, encodeString } from "../../src/journal/codec.js";

describe("journal codec (docs/formats.md byte style)", () => {
  it("writes a system record with keys in order and spaced separators", () => {
    const line = encodeRecord({
      shape: "system",
      run: "run-abc",
      topic: "loop.start",
      ts: "2026-04-07T12:00:00.000Z",
      v: 1,
      fields: { objective: "fix it", max_iterations: "3" },
    });
    expect(line).toBe(
      '{"run": "run-abc", "topic": "loop.start", "ts": "2026-04-07T12:00:00.000Z", "v": 1, "fields": {"objective": "fix it", "max_iterations": "3"}}',
    );
  });

  it("writes iteration when set and booleans unquoted", () => {
    const line = encodeRecord({
      shape: "system",
      run: "r",
      iteration: "2",
      topic: "backend.finish",
      ts: "2026-04-07T12:00:00.000Z",
      v: 1,
      fields: { exit_code: "0", timed_out: false, output: "" },
    });
    expect(line).toBe(
      '{"run": "r", "iteration": "2", "topic": "backend.finish", "ts": "2026-04-07T12:00:00.000Z", "v": 1, "fields": {"exit_code": "0", "timed_out": false, "output": ""}}',
    );
  });

  it("writes an agent record with payload and source last", () => {
    const line = encodeRecord({
      shape: "agent",
      run: "r",
      iteration: "1",
      topic: "review.ready",
      ts: "2026-04-07T12:00:00.000Z",
      v: 1,
      payload: "done",
      source: "agent",
    });
    expect(line).toBe(
      '{"run": "r", "iteration": "1", "topic": "review.ready", "ts": "2026-04-07T12:00:00.000Z", "v": 1, "payload": "done", "source": "agent"}',
    );
  });

  it("escapes backslash, quote and control characters as lower-case \\uXXXX, keeps UTF-8 raw", () => {
    expect(encodeString('a\\b"c\nd\re\tf\u0001g\u001fé€😀')).toBe(
      '"a\\u005cb\\u0022c\\u000ad\\u000de\\u0009f\\u0001g\\u001fé€😀"',
    );
  });

  it("round-trips through JSON.parse and decodeRecord", () => {
    const text = 'quote " slash \\ nl \n tab \t ctrl \u0007 😀';
    const line = encodeRecord({
      shape: "agent",
      run: "r",
      iteration: "1",
      topic: "t",
      ts: "x",
      v: 1,
      payload: text,
      source: "agent",
    });
    expect(JSON.parse(line).payload).toBe(text);
    const rec = decodeRecord(line);
    expect(rec?.shape === "agent" && rec.payload).toBe(text);
  });

  it("decodes compact JSON and rejects garbage", () => {
    const rec = decodeRecord(
      '{"run":"r","topic":"loop.stop","ts":"t","v":1,"fields":{"reason":"stalled"}}',
    );
    expect(rec).toMatchObject({
      shape: "system",
      run: "r",
      topic: "loop.stop",
      fields: { reason: "stalled" },
    });
    expect(decodeRecord('{"run": "r", "topic": "x", "ts"')).toBeUndefined();
    expect(decodeRecord("not json")).toBeUndefined();
    expect(decodeRecord("[1,2]")).toBeUndefined();
    expect(decodeRecord('{"topic": "x"}')).toBeUndefined();
  });
});
