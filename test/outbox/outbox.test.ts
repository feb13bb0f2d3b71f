import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DeliveryResult } from "../../src/monitor/channels/delivery.js";
import { deliveryFailedMessage } from "../../src/monitor/outbox/delivery-failed.js";
import type { Outbox } from "../../src/monitor/outbox/outbox.js";
import type { DeadLetter } from "../../src/monitor/outbox/record.js";
import { Redactor } from "../../src/util/secrets.js";
import { removeTempDirs, sampleMessage, tempDir } from "../channels/helpers.js";
import { closeOutboxes, lines, ok, openOutbox as open, scripted, T0 } from "./helpers.js";

afterEach(async () => {
  await closeOutboxes();
  removeTempDirs();
});

describe("outbox", () => {
  it("writes one enqueued line per channel, sharing one message id, then delivers", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const a = scripted("a", ok);
    const b = scripted("b", ok);
    const { outbox } = open({ path, channels: [a.channel, b.channel] });
    const entries = outbox.enqueue(sampleMessage(), ["a", "b", "a"]);
    expect(entries).toHaveLength(2);
    expect(entries[0]!.messageId).toBe(entries[1]!.messageId);
    // Durable before any send is attempted.
    expect(lines(path).map((l) => l.type)).toEqual(["enqueued", "enqueued"]);
    const outcomes = await outbox.deliverDue(T0);
    expect(outcomes.map((o) => o.kind)).toEqual(["delivered", "delivered"]);
    expect(a.seen[0]!.messageId).toBe(entries[0]!.messageId);
    expect(lines(path).map((l) => l.type)).toEqual([
      "enqueued",
      "enqueued",
      "delivered",
      "delivered",
    ]);
    expect(outbox.status(T0).backlog).toBe(0);
  });

  it("retries with jittered backoff and honours a receiver's Retry-After", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const answers: DeliveryResult[] = [
      { kind: "retry", error: "421 busy" },
      { kind: "retry", error: "429", retryAfterMs: 60_000 },
      ok(),
    ];
    const ch = scripted("a", () => answers.shift()!);
    const { outbox, setNow } = open({ path, channels: [ch.channel] });
    outbox.enqueue(sampleMessage(), ["a"]);
    const [first] = await outbox.deliverDue(T0);
    // Attempt 1 failed: full jitter below 5 s, random() = 0.5.
    expect(first).toMatchObject({ kind: "retrying", nextAt: T0 + 2_500, error: "421 busy" });
    expect(await outbox.deliverDue(T0 + 2_499)).toEqual([]);
    setNow(T0 + 2_500);
    const [second] = await outbox.deliverDue(T0 + 2_500);
    expect(second).toMatchObject({ kind: "retrying", nextAt: T0 + 62_500 });
    expect(outbox.status(T0 + 2_500).channels.a).toEqual({ backlog: 1, lastError: "429" });
    setNow(T0 + 62_500);
    expect((await outbox.deliverDue(T0 + 62_500))[0]!.kind).toBe("delivered");
    expect(new Set(ch.seen.map((d) => d.messageId)).size).toBe(1);
    expect(ch.seen.map((d) => d.attempt)).toEqual([1, 2, 3]);
  });

  it("turns a permanent failure into a dead letter, reports it once, shows it in status", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const dead: DeadLetter[] = [];
    const redactor = new Redactor();
    redactor.add("s3cret-token");
    const ch = scripted("hook", () => ({ kind: "permanent", error: "HTTP 404 for s3cret-token" }));
    const { outbox } = open({
      path,
      channels: [ch.channel],
      onDead: (d) => dead.push(d),
      redactor,
    });
    outbox.enqueue(sampleMessage(), ["hook"]);
    expect((await outbox.deliverDue(T0))[0]).toMatchObject({
      kind: "dead",
      error: "HTTP 404 for [REDACTED]",
    });
    expect(await outbox.deliverDue(T0 + 3_600_000)).toEqual([]);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ channel: "hook", error: "HTTP 404 for [REDACTED]" });
    const status = outbox.status(T0);
    expect(status.backlog).toBe(0);
    expect(status.deadLetters).toEqual([
      expect.objectContaining({
        channel: "hook",
        kind: "gate_stuck",
        error: "HTTP 404 for [REDACTED]",
      }),
    ]);
    expect(readFileSync(path, "utf8")).not.toContain("s3cret-token");
  });

  it("never sends a delivery_failed alert to the failed channel, nor reports its own death", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const dead: DeadLetter[] = [];
    const a = scripted("a", () => ({ kind: "permanent", error: "nope" }));
    const b = scripted("b", () => ({ kind: "permanent", error: "nope" }));
    const { outbox } = open({
      path,
      channels: [a.channel, b.channel],
      onDead: (d) => dead.push(d),
    });
    const entries = outbox.enqueue(
      sampleMessage({
        kind: "delivery_failed",
        fingerprint: "delivery_failed:a",
        failedChannel: "a",
      }),
      ["a", "b"],
    );
    expect(entries.map((e) => e.channel)).toEqual(["b"]);
    await outbox.deliverDue(T0);
    expect(dead).toEqual([]);
    expect(outbox.status(T0).deadLetters).toHaveLength(1);
  });

  it("lets onDead raise a delivery_failed alert on the other channels only", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const broken = scripted("hook", () => ({ kind: "permanent", error: "HTTP 404" }));
    const mail = scripted("mail", ok);
    let box: Outbox | undefined;
    const { outbox } = open({
      path,
      channels: [broken.channel, mail.channel],
      onDead: (dead) => box!.enqueue(deliveryFailedMessage(dead), box!.channelNames()),
    });
    box = outbox;
    outbox.enqueue(sampleMessage(), ["hook"]);
    await outbox.deliverDue(T0);
    await outbox.deliverDue(T0);
    expect(broken.seen.map((d) => d.message.kind)).toEqual(["gate_stuck"]);
    expect(mail.seen.map((d) => d.message)).toEqual([
      expect.objectContaining({
        kind: "delivery_failed",
        fingerprint: "delivery_failed:hook",
        failedChannel: "hook",
        runId: "run-20261121-0200-ab12",
      }),
    ]);
    expect(mail.seen[0]!.message.summary).toContain("HTTP 404");
  });

  it("gives up on transient failures after the maximum age", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const ch = scripted("a", () => ({ kind: "retry", error: "ECONNREFUSED" }));
    const { outbox, setNow } = open({ path, channels: [ch.channel], maxAgeMs: 60_000 });
    outbox.enqueue(sampleMessage(), ["a"]);
    expect((await outbox.deliverDue(T0))[0]!.kind).toBe("retrying");
    setNow(T0 + 60_000);
    const [last] = await outbox.deliverDue(T0 + 60_000);
    expect(last).toMatchObject({ kind: "dead" });
    expect(last!.kind === "dead" && last!.error).toMatch(
      /^gave up after 1m and 2 attempts; last error: ECONNREFUSED/,
    );
  });

  it("makes entries for an unknown channel dead letters", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const { outbox } = open({ path, channels: [scripted("mail", ok).channel] });
    outbox.enqueue(sampleMessage(), ["pager"]);
    const [o] = await outbox.deliverDue(T0);
    expect(o).toMatchObject({
      kind: "dead",
      error: 'channel "pager" is not configured (configured: mail)',
    });
  });

  it("bounds sends in flight per channel", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    let active = 0;
    let peak = 0;
    const ch = scripted("a", async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setImmediate(r));
      active--;
      return ok();
    });
    const { outbox } = open({ path, channels: [ch.channel], concurrency: 2 });
    for (let i = 0; i < 6; i++) outbox.enqueue(sampleMessage({ fingerprint: `f${i}` }), ["a"]);
    const outcomes = await Promise.all([outbox.deliverDue(T0), outbox.deliverDue(T0)]);
    expect(outcomes.flat()).toHaveLength(6);
    expect(ch.seen).toHaveLength(6);
    expect(peak).toBe(2);
  });

  it("reports backlog and the age of the oldest pending entry", async () => {
    const path = join(tempDir(), "outbox.jsonl");
    const { outbox } = open({ path, channels: [] });
    outbox.enqueue(sampleMessage(), ["a", "b"], T0);
    outbox.enqueue(sampleMessage(), ["a"], T0 + 60_000);
    expect(outbox.status(T0 + 120_000)).toMatchObject({
      backlog: 3,
      inFlight: 0,
      oldestPendingAgeMs: 120_000,
      channels: { a: { backlog: 2 }, b: { backlog: 1 } },
    });
  });

  it("rejects a malformed message before writing it", () => {
    const path = join(tempDir(), "outbox.jsonl");
    const { outbox } = open({ path, channels: [] });
    const bad = { ...sampleMessage(), kind: "nope" } as unknown as ReturnType<typeof sampleMessage>;
    expect(() => outbox.enqueue(bad, ["a"])).toThrow();
    expect(outbox.status(T0).backlog).toBe(0);
  });
});
