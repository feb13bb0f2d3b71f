import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AlertChannel, DeliveryResult } from "../../src/monitor/channels/delivery.js";
import { Outbox } from "../../src/monitor/outbox/outbox.js";
import type { WorkerTimers } from "../../src/monitor/outbox/worker.js";
import { removeTempDirs, sampleMessage, tempDir } from "../channels/helpers.js";

const T0 = Date.parse("2026-11-21T02:00:00.000Z");

/** Timers the test fires by hand; `armed` is the one live timer's delay. */
function manualTimers() {
  let live: { fn: () => void; ms: number; id: number } | undefined;
  let ids = 0;
  const timers: WorkerTimers = {
    set: (fn, ms) => {
      live = { fn, ms, id: ++ids };
      return live.id;
    },
    clear: (id) => {
      if (live?.id === id) live = undefined;
    },
  };
  return {
    timers,
    armed: () => live?.ms,
    fire: () => {
      const t = live!;
      live = undefined;
      t.fn();
    },
  };
}

let outbox: Outbox | undefined;
afterEach(async () => {
  await outbox?.close();
  outbox = undefined;
  removeTempDirs();
});

describe("outbox worker", () => {
  it("wakes for due entries, re-arms for the next retry, sleeps at most 30 s", async () => {
    const answers: DeliveryResult[] = [
      { kind: "retry", error: "down" },
      { kind: "delivered", response: "ok" },
    ];
    const channel: AlertChannel = {
      name: "a",
      type: "scripted",
      send: async () => answers.shift()!,
      close: async () => {},
    };
    let now = T0;
    const t = manualTimers();
    outbox = Outbox.open({
      path: join(tempDir(), "outbox.jsonl"),
      channels: [channel],
      now: () => now,
      random: () => 0.5,
      timers: t.timers,
    });
    outbox.start();
    expect(t.armed()).toBe(30_000);

    const [entry] = outbox.enqueue(sampleMessage(), ["a"]);
    expect(t.armed()).toBe(0);
    const first = outbox.waitForAttempt(entry!.entryId);
    t.fire();
    expect(await first).toMatchObject({ kind: "retrying", nextAt: T0 + 2_500 });
    expect(t.armed()).toBe(2_500);

    now = T0 + 2_500;
    const second = outbox.waitForAttempt(entry!.entryId);
    t.fire();
    expect(await second).toMatchObject({ kind: "delivered" });
    expect(t.armed()).toBe(30_000);

    await outbox.stop();
    expect(t.armed()).toBeUndefined();
  });

  it("stop() waits for the send in flight", async () => {
    let release: (r: DeliveryResult) => void = () => {};
    const channel: AlertChannel = {
      name: "a",
      type: "scripted",
      send: () => new Promise((resolve) => (release = resolve)),
      close: async () => {},
    };
    const t = manualTimers();
    outbox = Outbox.open({
      path: join(tempDir(), "outbox.jsonl"),
      channels: [channel],
      timers: t.timers,
    });
    outbox.start();
    outbox.enqueue(sampleMessage(), ["a"]);
    t.fire();
    expect(outbox.status().inFlight).toBe(1);
    let stopped = false;
    const stopping = outbox.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release({ kind: "delivered", response: "ok" });
    await stopping;
    expect(outbox.status().backlog).toBe(0);
  });

  it("sends an entry due now once the enqueuing work returns, ahead of queued immediates", async () => {
    const order: string[] = [];
    const sent = new Promise<void>((resolve) => {
      const channel: AlertChannel = {
        name: "a",
        type: "scripted",
        send: async () => {
          order.push("send");
          resolve();
          return { kind: "delivered", response: "ok" };
        },
        close: async () => {},
      };
      outbox = Outbox.open({ path: join(tempDir(), "outbox.jsonl"), channels: [channel] });
    });
    outbox!.start();
    const queued = new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push("immediate");
        resolve();
      }),
    );
    // Two entries in one pass: the first wake-up is replaced by the second (one send pass).
    outbox!.enqueue(sampleMessage(), ["a"]);
    outbox!.enqueue(sampleMessage(), ["a"]);
    order.push("pass ends");
    await Promise.all([sent, queued]);
    expect(order.slice(0, 3)).toEqual(["pass ends", "send", "send"]);
    expect(order).toContain("immediate");
    expect(order.indexOf("immediate")).toBeGreaterThan(2);
  });
});
