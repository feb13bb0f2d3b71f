import { describe, expect, it } from "vitest";
import {
  eachItem,
  runSliced,
  runSteps,
  SliceTimer,
  StepPace,
  type Steps,
} from "../../src/util/steps.js";

function* counting(log: string[], n: number): Steps<number> {
  for (let i = 1; i <= n; i++) {
    log.push(`step ${i}`);
    yield;
  }
  return n * 10;
}

describe("steps", () => {
  it("run to the end at once, with the generator's result", () => {
    const log: string[] = [];
    expect(runSteps(counting(log, 3))).toBe(30);
    expect(log).toEqual(["step 1", "step 2", "step 3"]);
  });

  it("run in slices give the event loop a turn between them", async () => {
    const log: string[] = [];
    let turns = 0;
    const other = () => {
      log.push("event loop");
      if (++turns < 10) setImmediate(other);
    };
    setImmediate(other);
    // A zero budget: every step is a slice of its own.
    const result = await runSliced(counting(log, 3), 0);
    expect(result).toBe(30);
    expect(log.slice(0, 6)).toEqual([
      "step 1",
      "event loop",
      "step 2",
      "event loop",
      "step 3",
      "event loop",
    ]);
  });

  it("give the event loop one more turn after a long one, before the next slice", async () => {
    const log: string[] = [];
    setImmediate(() => {
      const until = performance.now() + 12; // a long turn: a collection, other work
      while (performance.now() < until);
      log.push("long turn");
      setImmediate(() => log.push("next turn"));
    });
    await runSliced(counting(log, 2), 0);
    // Without the extra turn, step 2 would run right after the long one.
    expect(log).toEqual(["step 1", "long turn", "next turn", "step 2"]);
  });

  it("keep going without a turn while the slice's budget lasts", async () => {
    const log: string[] = [];
    setImmediate(() => log.push("event loop"));
    await runSliced(counting(log, 3), 60_000);
    expect(log).toEqual(["step 1", "step 2", "step 3"]);
  });

  it("give an async loop (SliceTimer) a turn once its slice is spent, not before", async () => {
    const log: string[] = [];
    setImmediate(() => log.push("event loop"));
    const long = new SliceTimer(60_000);
    for (const item of ["a", "b"]) {
      log.push(item);
      await long.turnIfDue();
    }
    const spent = new SliceTimer(0);
    log.push("c");
    await spent.turnIfDue();
    log.push("d");
    expect(log).toEqual(["a", "b", "c", "event loop", "d"]);
  });

  it("visit every item, yielding every `every` items", () => {
    const seen: number[] = [];
    const steps = eachItem([1, 2, 3, 4, 5], (n) => seen.push(n), 2);
    let yields = 0;
    while (!steps.next().done) yields++;
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(yields).toBe(2);
  });
});

describe("StepPace", () => {
  it("sizes the next step to take about stepMs, within its bounds", () => {
    const pace = new StepPace(2, 10, 100);
    expect(pace.size).toBe(10); // the least at first: the code may still be cold
    pace.took(10, 0.5);
    expect(pace.size).toBe(40);
    pace.took(40, 0.1);
    expect(pace.size).toBe(100);
    pace.took(100, 20);
    expect(pace.size).toBe(10);
    pace.took(10, 0); // too fast to measure: the most
    expect(pace.size).toBe(100);
  });

  it("never sizes a step at no items, whatever it is told", () => {
    expect(() => new StepPace(2, 0, 10)).toThrow(RangeError);
    expect(() => StepPace.fixed(0)).toThrow(RangeError);
    expect(() => new StepPace(2, 10, 5)).toThrow(RangeError);
    const pace = new StepPace(2, 10, 100);
    pace.took(10, Number.NaN);
    expect(pace.size).toBe(10);
  });

  it("fixed: the same size whatever a step took", () => {
    const pace = StepPace.fixed(7);
    pace.took(7, 1000);
    expect(pace.size).toBe(7);
    pace.took(7, 0);
    expect(pace.size).toBe(7);
  });
});
