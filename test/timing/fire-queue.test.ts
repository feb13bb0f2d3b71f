import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type FireEvent,
  FireQueue,
  type FireQueueDeps,
  realClock,
} from "../../src/scheduler/timing/fire-queue.js";
import { fireTimeOf } from "../../src/scheduler/timing/jitter.js";
import { catchUpSlots, type PlanSpec } from "../../src/scheduler/timing/planner.js";

const spec = (name: string, cron: string, timezone = "UTC", jitterMs = 0): PlanSpec => ({
  name,
  cron,
  timezone,
  jitterMs,
});
const at = (iso: string) => new Date(iso).getTime();

/** Real-shaped deps over vitest's fake clock, recording every sleep and wake-up. */
function fakeDeps() {
  const sleeps: number[] = [];
  let wakes = 0;
  const deps: FireQueueDeps = {
    now: () => Date.now(),
    setTimeout: (fn, ms) => {
      sleeps.push(ms);
      return setTimeout(() => {
        wakes++;
        fn();
      }, ms);
    },
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
  return { deps, sleeps, wakes: () => wakes };
}

function collect() {
  const events: FireEvent[] = [];
  const brief = () =>
    events.flatMap((e) =>
      e.kind === "clock-jump"
        ? [`jump ${e.ms > 0 ? "forward" : "backward"}`]
        : e.kind === "due"
          ? e.slots.map((s) => `due ${s.name} ${new Date(s.slot).toISOString()} +${e.lateness}ms`)
          : [`missed ${e.name} ${e.slot.toISOString()} +${e.lateness}ms`],
    );
  return { events, brief, handler: (e: FireEvent) => events.push(e) };
}

describe("FireQueue", () => {
  beforeEach(() => {
    // hrtime stays real so the dispatch test can measure actual time spent.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(new Date("2026-01-01T09:59:50Z"));
  });
  afterEach(() => vi.useRealTimers());

  it("fires schedules in order from one timer, on time", () => {
    const { deps } = fakeDeps();
    const { brief, handler } = collect();
    const q = new FireQueue(handler, deps);
    q.upsert(spec("b", "0 10 * * *"));
    q.upsert(spec("a", "0 10 * * *"));
    q.upsert(spec("c", "1 10 * * *"));
    q.start();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(70_000);
    expect(brief()).toEqual([
      "due a 2026-01-01T10:00:00.000Z +0ms",
      "due b 2026-01-01T10:00:00.000Z +0ms",
      "due c 2026-01-01T10:01:00.000Z +0ms",
    ]);
    expect(vi.getTimerCount()).toBe(1);
    expect(q.pending("a")?.slot.toISOString()).toBe("2026-01-02T10:00:00.000Z");
    q.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never sleeps longer than 30 s, even for a daily schedule", () => {
    const { deps, sleeps } = fakeDeps();
    const q = new FireQueue(() => {}, deps);
    q.upsert(spec("daily", "0 3 * * *"));
    q.start();
    vi.advanceTimersByTime(5 * 60_000);
    expect(sleeps.length).toBeGreaterThan(9);
    expect(Math.max(...sleeps)).toBe(30_000);
    q.stop();
  });

  it("reports slots passed during a suspend as missed, with lateness, not as fired", () => {
    const { deps } = fakeDeps();
    const { events, brief, handler } = collect();
    const q = new FireQueue(handler, deps);
    const hourly = spec("hourly", "0 * * * *");
    q.upsert(hourly);
    q.start();
    // The machine sleeps at 09:59:50 and resumes at 11:30:00; the pending 10 s timer (set to
    // end 20 ms early, for timer slack) then fires at 11:30:09.980 by the wall clock.
    vi.setSystemTime(new Date("2026-01-01T11:30:00Z"));
    vi.advanceTimersByTime(10_000);
    expect(brief()).toEqual(["jump forward", "missed hourly 2026-01-01T10:00:00.000Z +5409980ms"]);
    const missed = events[1] as Extract<FireEvent, { kind: "missed" }>;
    expect(missed.until.toISOString()).toBe("2026-01-01T11:30:09.980Z");
    // 11:00 is covered by the report, so the queue moves on to 12:00 ...
    expect(q.pending("hourly")?.slot.toISOString()).toBe("2026-01-01T12:00:00.000Z");
    // ... and the daemon decides what to launch with its catch-up policy.
    const catchUp = catchUpSlots(hourly, new Date(at("2026-01-01T09:00:00Z")), missed.until, {
      mode: "latest",
      windowMs: 6 * 3_600_000,
    });
    expect(catchUp.slots.map((d) => d.toISOString())).toEqual(["2026-01-01T11:00:00.000Z"]);
    q.stop();
  });

  it("treats a wake-up within the threshold as on time", () => {
    const { deps } = fakeDeps();
    const { brief, handler } = collect();
    const q = new FireQueue(handler, deps, { lateAfterMs: 2_000 });
    q.upsert(spec("m", "0 10 * * *"));
    q.start();
    vi.setSystemTime(new Date("2026-01-01T09:59:51.500Z")); // a 1.5 s hiccup
    vi.advanceTimersByTime(10_000);
    // (The 10 s sleep was set to end 20 ms early.)
    expect(brief()).toEqual(["due m 2026-01-01T10:00:00.000Z +1480ms"]);
    q.stop();
  });

  it("plans every schedule again from the new time when the clock steps back", () => {
    const { deps } = fakeDeps();
    const { brief, handler } = collect();
    const q = new FireQueue(handler, deps);
    const minutely = spec("minutely", "* * * * *");
    const daily = spec("daily", "30 10 * * *");
    q.upsert(minutely);
    q.upsert(daily);
    q.start();
    vi.advanceTimersByTime(10_000); // 10:00:00 fires
    vi.setSystemTime(new Date("2026-01-01T09:00:00Z")); // NTP steps the clock back an hour
    // Noticed at the next wake-up (at most 30 s on), and planned again from 09:00.
    vi.advanceTimersByTime(30_000);
    expect(brief()).toEqual(["due minutely 2026-01-01T10:00:00.000Z +0ms", "jump backward"]);
    expect(q.pending("minutely")?.slot.toISOString()).toBe("2026-01-01T09:01:00.000Z");
    expect(q.pending("daily")?.slot.toISOString()).toBe("2026-01-01T10:30:00.000Z");
    // The slots come round again as the clock passes them (the ledger decides which run).
    vi.advanceTimersByTime(2 * 60_000);
    expect(brief().slice(2)).toEqual([
      "due minutely 2026-01-01T09:01:00.000Z +0ms",
      "due minutely 2026-01-01T09:02:00.000Z +0ms",
    ]);
    q.upsert(minutely); // a reload goes on from there too
    expect(q.pending("minutely")?.slot.toISOString()).toBe("2026-01-01T09:03:00.000Z");
    q.stop();
  });

  it("dispatches 1,000 schedules due on the same second in one wake-up", () => {
    const { deps, wakes } = fakeDeps();
    const due: Array<{ name: string; lateness: number; wake: number }> = [];
    const q = new FireQueue((e) => {
      if (e.kind !== "due") return;
      for (const s of e.slots) due.push({ name: s.name, lateness: e.lateness, wake: wakes() });
    }, deps);
    for (let i = 0; i < 1000; i++) {
      // Half in UTC, half in Berlin (UTC+1 in January): all fall on 10:00:00Z.
      q.upsert(
        i % 2 === 0 ? spec(`s${i}`, "0 10 * * *") : spec(`s${i}`, "0 11 * * *", "Europe/Berlin"),
      );
    }
    q.start();
    expect(vi.getTimerCount()).toBe(1);
    const started = process.hrtime.bigint();
    vi.advanceTimersByTime(10_000);
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(due).toHaveLength(1000);
    expect(new Set(due.map((d) => d.wake))).toEqual(new Set([wakes()]));
    expect(Math.max(...due.map((d) => d.lateness))).toBe(0);
    expect(elapsedMs).toBeLessThan(2_000);
    expect(q.size).toBe(1000);
    expect(vi.getTimerCount()).toBe(1);
    q.stop();
  });

  it("hands out an instant shared by several schedules in name order, after a short last sleep", () => {
    const { deps, sleeps } = fakeDeps();
    const { brief, handler } = collect();
    const q = new FireQueue(handler, deps);
    for (const name of ["c", "a", "b"]) q.upsert(spec(name, "0 10 * * *"));
    q.start();
    vi.advanceTimersByTime(10_000);
    expect(brief()).toEqual([
      "due a 2026-01-01T10:00:00.000Z +0ms",
      "due b 2026-01-01T10:00:00.000Z +0ms",
      "due c 2026-01-01T10:00:00.000Z +0ms",
    ]);
    // 10 s ahead: a sleep that ends 20 ms early (timer slack makes long sleeps late), then 20 ms.
    expect(sleeps.slice(0, 2)).toEqual([9_980, 20]);
    q.stop();
  });

  it("fires at the jittered instant but names the unjittered slot", () => {
    const { deps } = fakeDeps();
    const { events, handler } = collect();
    const q = new FireQueue(handler, deps);
    const jittered = spec("jit", "0 10 * * *", "UTC", 5 * 60_000);
    q.upsert(jittered);
    q.start();
    const slot = new Date("2026-01-01T10:00:00Z");
    const fireAt = fireTimeOf(jittered, slot);
    vi.advanceTimersByTime(fireAt.getTime() - Date.now() - 1);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toMatchObject([
      { kind: "due", slots: [{ name: "jit", slot: slot.getTime() }], fireAt, lateness: 0 },
    ]);
    q.stop();
  });

  it("keeps a slot whose jittered fire time is still ahead when (re)started after the slot", () => {
    vi.setSystemTime(new Date("2026-01-01T10:00:00.001Z"));
    const { deps } = fakeDeps();
    const q = new FireQueue(() => {}, deps);
    const jittered = spec("jit", "0 10 * * *", "UTC", 5 * 60_000);
    q.upsert(jittered);
    expect(q.pending("jit")?.slot.toISOString()).toBe("2026-01-01T10:00:00.000Z");
    q.upsert(jittered, new Date("2026-01-01T10:00:00Z")); // the ledger says it already ran
    expect(q.pending("jit")?.slot.toISOString()).toBe("2026-01-02T10:00:00.000Z");
  });

  it("stops firing removed schedules and survives a throwing handler", () => {
    const { deps } = fakeDeps();
    const errors: unknown[] = [];
    const seen: string[] = [];
    const q = new FireQueue(
      (e) => {
        if (e.kind !== "due") return;
        seen.push(...e.slots.map((s) => s.name));
        if (e.slots.some((s) => s.name === "a")) throw new Error("boom");
      },
      deps,
      { onHandlerError: (err) => errors.push(err) },
    );
    q.upsert(spec("a", "0 10 * * *"));
    for (const name of ["b", "gone"]) q.upsert(spec(name, "1 10 * * *"));
    q.remove("gone");
    q.start();
    vi.advanceTimersByTime(100_000);
    expect(seen).toEqual(["a", "b"]);
    expect(errors).toHaveLength(1);
    expect(q.pending("gone")).toBeUndefined();
    expect(q.size).toBe(2);
    q.stop();
  });

  it("reports every slot of a per-second schedule after a short hiccup", () => {
    const { deps } = fakeDeps();
    const { brief, handler } = collect();
    const q = new FireQueue(handler, deps);
    q.upsert(spec("fast", "* * * * * *"));
    q.start();
    // The event loop stalls 1.5 s, so the pending 1 s timer fires at 09:59:52.5.
    vi.setSystemTime(new Date("2026-01-01T09:59:51.500Z"));
    vi.advanceTimersByTime(1_000);
    expect(brief()).toEqual([
      "due fast 2026-01-01T09:59:51.000Z +1498ms",
      "due fast 2026-01-01T09:59:52.000Z +498ms",
    ]);
    q.stop();
  });
});

describe("FireQueue reloads", () => {
  it("compacts stale heap entries left by frequent re-adds", () => {
    const q = new FireQueue(() => {}, {
      now: () => at("2026-01-01T00:00:00Z"),
      setTimeout: () => 0,
      clearTimeout: () => {},
    });
    const inside = q as unknown as { instants: { size: number }; stale: number };
    for (let i = 0; i < 5000; i++) {
      q.upsert(spec(`s${i % 10}`, "0 10 * * *"));
      if (i % 50 === 7) q.remove(`s${i % 10}`);
      // Every entry held is pending or counted stale, across compactions too.
      expect(inside.instants.size).toBe(q.size + inside.stale);
    }
    expect(inside.instants.size).toBeLessThan(1100);
    expect(q.size).toBe(10);
  });
});

describe("FireQueue on the real clock", () => {
  it("wakes a little early and hands out each instant at it, never before", async () => {
    const seen: Array<{ names: string[]; fireAt: number; at: number }> = [];
    let done: () => void = () => {};
    const twoInstants = new Promise<void>((resolve) => {
      done = resolve;
    });
    const q = new FireQueue((e) => {
      if (e.kind !== "due") return;
      seen.push({ names: e.slots.map((s) => s.name), fireAt: e.fireAt.getTime(), at: Date.now() });
      if (seen.length === 2) done();
    }, realClock);
    for (const name of ["b", "a", "c"]) q.upsert(spec(name, "* * * * * *"));
    q.start();
    await twoInstants;
    q.stop();
    for (const { names, fireAt, at } of seen) {
      expect(names).toEqual(["a", "b", "c"]);
      expect(at).toBeGreaterThanOrEqual(fireAt);
    }
    expect(seen[1]!.fireAt - seen[0]!.fireAt).toBe(1000);
  });
});
