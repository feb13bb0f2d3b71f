import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DeliveryResult } from "../../src/monitor/channels/delivery.js";
import { removeTempDirs, sampleMessage, tempDir } from "../channels/helpers.js";
import { closeOutboxes, lines, ok, openOutbox as open, scripted, T0 } from "./helpers.js";

afterEach(async () => {
  await closeOutboxes();
  removeTempDirs();
});

describe("outbox file: replay, torn lines, compaction", () => {
  it("after a crash between enqueue and delivery, resends with the same message id", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const first = scripted("hook", ok);
    const before = open({ path, channels: [first.channel] }).outbox;
    const [entry] = before.enqueue(sampleMessage(), ["hook"]);
    // The process dies here: nothing but the enqueued line reached the disk.
    const second = scripted("hook", ok);
    const { outbox: after } = open({ path, channels: [second.channel] });
    expect(after.status(T0).backlog).toBe(1);
    await after.deliverDue(T0);
    expect(second.seen.map((d) => d.messageId)).toEqual([entry!.messageId]);
    expect(first.seen).toEqual([]);
  });

  it("tolerates a torn last line and keeps appending on a fresh line", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const { outbox } = open({ path, channels: [scripted("a", ok).channel] });
    outbox.enqueue(sampleMessage(), ["a"]);
    await outbox.close();
    appendFileSync(path, '{"type":"delivered","id":"x","at":"2026');
    const again = scripted("a", ok);
    const { outbox: reopened } = open({ path, channels: [again.channel] });
    expect(reopened.status(T0).backlog).toBe(1);
    await reopened.deliverDue(T0);
    expect(again.seen).toHaveLength(1);
    expect(lines(path).map((l) => l.type)).toEqual(["enqueued", "delivered"]);
  });

  it("keeps a whole last record that only lost its newline", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const { outbox } = open({ path, channels: [] });
    outbox.enqueue(sampleMessage(), ["a"]);
    await outbox.close();
    writeFileSync(path, readFileSync(path, "utf8").trimEnd());
    const { outbox: reopened } = open({ path, channels: [] });
    expect(reopened.status(T0).backlog).toBe(1);
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
  });

  it("takes an entry whose retry time does not parse as due at once (never as never due)", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const { outbox } = open({ path, channels: [] });
    const [entry] = outbox.enqueue(sampleMessage(), ["a"]);
    await outbox.close();
    appendFileSync(
      path,
      `${JSON.stringify({ type: "attempt", id: entry!.entryId, at: "garbled", attempt: 1, error: "down", nextAt: "garbled" })}\n`,
    );
    const again = scripted("a", ok);
    const { outbox: reopened } = open({ path, channels: [again.channel] });
    expect(reopened.nextDueAt()).toBe(0);
    await reopened.deliverDue(T0);
    expect(again.seen).toHaveLength(1);
  });

  it("compacts to pending entries and recent dead letters, and replays the same state", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const ch = scripted("a", (d): DeliveryResult => {
      if (d.message.kind === "run_failed") return { kind: "permanent", error: "rejected" };
      if (d.message.fingerprint === "pending") return { kind: "retry", error: "down" };
      return ok();
    });
    const { outbox } = open({ path, channels: [ch.channel] });
    for (let i = 0; i < 5; i++) outbox.enqueue(sampleMessage({ fingerprint: `f${i}` }), ["a"]);
    outbox.enqueue(sampleMessage({ kind: "run_failed" }), ["a"]);
    const [pending] = outbox.enqueue(sampleMessage({ fingerprint: "pending" }), ["a"]);
    await outbox.deliverDue(T0);
    const sizeBefore = statSync(path).size;
    outbox.compact(T0);
    expect(statSync(path).size).toBeLessThan(sizeBefore);
    expect(lines(path).map((l) => l.type)).toEqual(["enqueued", "dead", "enqueued", "attempt"]);
    const { outbox: reopened } = open({ path, channels: [] });
    const status = reopened.status(T0);
    expect(status).toMatchObject({
      backlog: 1,
      channels: { a: { backlog: 1, lastError: "down" } },
    });
    expect(status.nextAttemptAt).toBe(new Date(T0 + 2_500).toISOString());
    expect(status.deadLetters.map((d) => d.kind)).toEqual(["run_failed"]);
    expect(reopened.nextDueAt()).toBe(T0 + 2_500);
    expect(pending).toBeDefined();
  });

  it("drops dead letters past their retention when compacting", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const ch = scripted("a", () => ({ kind: "permanent", error: "rejected" }));
    const { outbox } = open({ path, channels: [ch.channel], deadRetentionMs: 60_000 });
    outbox.enqueue(sampleMessage(), ["a"]);
    await outbox.deliverDue(T0);
    outbox.compact(T0 + 61_000);
    expect(readFileSync(path, "utf8")).toBe("");
    expect(outbox.status(T0).deadLetters).toEqual([]);
  });

  it("compacts on its own when the file passes the threshold, then keeps appending", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const ch = scripted("a", ok);
    const { outbox } = open({ path, channels: [ch.channel], compactBytes: 4_000 });
    for (let i = 0; i < 5; i++) outbox.enqueue(sampleMessage({ fingerprint: `f${i}` }), ["a"]);
    await outbox.deliverDue(T0);
    expect(readFileSync(path, "utf8")).toBe("");
    outbox.enqueue(sampleMessage(), ["a"]);
    expect(lines(path).map((l) => l.type)).toEqual(["enqueued"]);
  });
});
