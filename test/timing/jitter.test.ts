import { describe, expect, it } from "vitest";
import { fireTimeOf, jitterOffset } from "../../src/scheduler/timing/jitter.js";

describe("jitter", () => {
  const slot = new Date("2026-01-01T02:00:00Z");

  it("is deterministic per schedule and slot, so restarts compute the same instant", () => {
    expect(jitterOffset("nightly-fix", slot, 300_000)).toBe(
      jitterOffset("nightly-fix", slot, 300_000),
    );
    expect(fireTimeOf({ name: "nightly-fix", jitterMs: 300_000 }, slot)).toEqual(
      new Date(slot.getTime() + jitterOffset("nightly-fix", slot, 300_000)),
    );
  });

  it("stays in [0, jitter) and spreads schedules and slots across the range", () => {
    const offsets: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const s = new Date(slot.getTime() + Math.floor(i / 40) * 3_600_000);
      offsets.push(jitterOffset(`schedule-${i % 40}`, s, 300_000));
    }
    expect(Math.min(...offsets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...offsets)).toBeLessThan(300_000);
    const mean = offsets.reduce((a, b) => a + b, 0) / offsets.length;
    expect(mean).toBeGreaterThan(135_000);
    expect(mean).toBeLessThan(165_000);
    expect(new Set(offsets).size).toBeGreaterThan(1900);
  });

  it("differs between schedules and between slots", () => {
    const a = jitterOffset("a", slot, 3_600_000);
    expect(jitterOffset("b", slot, 3_600_000)).not.toBe(a);
    expect(jitterOffset("a", new Date(slot.getTime() + 86_400_000), 3_600_000)).not.toBe(a);
  });

  it("is zero when jitter is off", () => {
    expect(jitterOffset("a", slot, 0)).toBe(0);
    expect(fireTimeOf({ name: "a", jitterMs: 0 }, slot)).toEqual(slot);
  });
});
