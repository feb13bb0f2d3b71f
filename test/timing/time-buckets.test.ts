import { describe, expect, it } from "vitest";
import { TimeBuckets } from "../../src/timing/time-buckets.js";

type Entry = { fireAt: number; name: string };

describe("TimeBuckets", () => {
  it("hands out each instant once, earliest first, its entries in name order", () => {
    const b = new TimeBuckets<Entry>();
    for (const [fireAt, name] of [
      [20, "b"],
      [10, "z"],
      [20, "a"],
      [10, "m"],
      [30, "c"],
      [10, "a"],
    ] as const)
      b.push({ fireAt, name });
    expect(b.size).toBe(6);
    expect(b.peek()?.fireAt).toBe(10);
    expect(b.takeDue(9)).toBeUndefined();
    const first = b.takeDue(25);
    expect(first?.entries.map((e) => e.name)).toEqual(["a", "m", "z"]);
    expect(b.takeDue(25)?.entries.map((e) => e.name)).toEqual(["a", "b"]);
    expect(b.takeDue(25)).toBeUndefined();
    expect(b.size).toBe(1);
    // An instant taken is gone: a new entry at it starts a bucket of its own.
    b.push({ fireAt: 10, name: "late" });
    expect(b.takeDue(100)?.entries.map((e) => e.name)).toEqual(["late"]);
    expect(b.takeDue(100)?.entries.map((e) => e.name)).toEqual(["c"]);
    expect(b.size).toBe(0);
  });

  it("keeps a bucket's name order up to date as entries join it, and sorts ahead of time", () => {
    const b = new TimeBuckets<Entry>();
    b.push({ fireAt: 5, name: "x" });
    expect(b.peek()?.sorted).toBe(true);
    b.push({ fireAt: 5, name: "c" });
    const top = b.peek()!;
    expect(top.sorted).toBe(false);
    TimeBuckets.sort(top);
    expect(top.entries.map((e) => e.name)).toEqual(["c", "x"]);
    expect(top.sorted).toBe(true);
  });

  it("retains only accepted entries and drops instants left empty", () => {
    const b = new TimeBuckets<Entry>();
    for (let i = 0; i < 50; i++) b.push({ fireAt: i % 5, name: `n${i}` });
    b.retain((e) => e.fireAt !== 2 && Number(e.name.slice(1)) % 2 === 0);
    expect(b.size).toBe(20);
    const instants: number[] = [];
    for (let due = b.takeDue(10); due !== undefined; due = b.takeDue(10)) {
      instants.push(due.fireAt);
      expect(due.entries.every((e) => e.fireAt === due.fireAt)).toBe(true);
    }
    expect(instants).toEqual([0, 1, 3, 4]);
  });
});
