import { describe, expect, it } from "vitest";
import { SlotQueue, type WaitingSlot } from "../../src/scheduler/admission/slot-queue.js";

const slot = (schedule: string, minute: number): WaitingSlot => ({
  schedule,
  slot: new Date(Date.UTC(2026, 0, 1, 0, minute)),
  trigger: "cron",
  dueAt: 0,
});

const names = (q: SlotQueue): string[] => {
  const seen: string[] = [];
  q.sweep((w) => {
    seen.push(`${w.schedule}:${w.slot.getUTCMinutes()}`);
    return "keep";
  });
  return seen;
};

describe("SlotQueue.sweep", () => {
  it("takes, keeps in place and stops, oldest first, and keeps the per-schedule counts", () => {
    const q = new SlotQueue();
    for (const [s, m] of [
      ["a", 0],
      ["b", 0],
      ["a", 1],
      ["c", 0],
      ["b", 1],
    ] as const)
      q.push(slot(s, m));
    const visited: string[] = [];
    q.sweep((w) => {
      visited.push(w.schedule);
      if (w.schedule === "a") return "keep"; // its run is still going
      if (w.schedule === "c") return "stop";
      return "take";
    });
    expect(visited).toEqual(["a", "b", "a", "c"]);
    expect(names(q)).toEqual(["a:0", "a:1", "c:0", "b:1"]);
    expect([q.count("a"), q.count("b"), q.count("c")]).toEqual([2, 1, 1]);
  });

  it("touches nothing after a stop on the first slot", () => {
    const q = new SlotQueue();
    for (let m = 0; m < 1000; m++) q.push(slot(`s${m}`, m % 60));
    let visits = 0;
    q.sweep(() => {
      visits++;
      return "stop";
    });
    expect(visits).toBe(1);
    expect(q.count("s0")).toBe(1);
    expect(names(q)).toHaveLength(1000);
  });
});
