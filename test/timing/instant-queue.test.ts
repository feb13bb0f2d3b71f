import { describe, expect, it } from "vitest";
import { InstantQueue } from "../../src/scheduler/timing/instant-queue.js";

type Entry = { fireAt: number; name: string };

describe("InstantQueue", () => {
  it("hands out each instant once, earliest first, its entries in name order", () => {
    const b = new InstantQueue<Entry>();
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
    expect(b.peek()).toBe(10);
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

  it("retains only accepted entries and drops instants left empty", () => {
    const b = new InstantQueue<Entry>();
    for (let i = 0; i < 50; i++) b.push({ fireAt: i % 5, name: `n${i}` });
    b.retain((e) => e.fireAt !== 2 && Number(e.name.slice(1)) % 2 === 0);
    expect(b.size).toBe(20);
    b.retain((e) => e.name !== "n0");
    expect(b.size).toBe(19);
    const instants: number[] = [];
    for (let due = b.takeDue(10); due !== undefined; due = b.takeDue(10)) {
      instants.push(due.fireAt);
      expect(due.entries.every((e) => e.fireAt === due.fireAt)).toBe(true);
    }
    expect(instants).toEqual([0, 1, 3, 4]);
  });
});
