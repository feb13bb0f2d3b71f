import { describe, expect, it } from "vitest";
import { decideSlot, type SlotFacts } from "../../src/scheduler/admission/policy.js";

const base: SlotFacts = {
  schedule: "nightly",
  overlap: "skip",
  enabled: true,
  paused: false,
  globallyPaused: false,
  running: [],
  runningTotal: 0,
  maxConcurrent: 4,
  after: [],
};

describe("slot policy", () => {
  it("launches when nothing stands in the way", () => {
    expect(decideSlot(base)).toEqual({ kind: "launch" });
  });

  it("applies each overlap policy while a run is still going", () => {
    const busy = { ...base, running: ["r1"], runningTotal: 1 };
    expect(decideSlot({ ...busy, overlap: "skip" })).toMatchObject({
      kind: "skip",
      cause: "overlap",
    });
    expect(decideSlot({ ...busy, overlap: "queue" })).toMatchObject({
      kind: "queue",
      why: "overlap",
    });
    expect(decideSlot({ ...busy, overlap: "replace" })).toEqual({ kind: "replace", stop: ["r1"] });
    expect(decideSlot({ ...busy, overlap: "allow" })).toEqual({ kind: "launch" });
  });

  it("queues at the global concurrency cap", () => {
    expect(decideSlot({ ...base, runningTotal: 4 })).toMatchObject({
      kind: "queue",
      why: "max_concurrent",
    });
  });

  it("blocks on an `after` schedule whose latest run did not complete", () => {
    const d = decideSlot({
      ...base,
      after: [
        { schedule: "build", latestStatus: "failed" },
        { schedule: "lint", latestStatus: undefined },
      ],
    });
    expect(d).toEqual({
      kind: "skip",
      cause: "blocked_by_after",
      detail: "waiting for build: latest run failed; lint: never ran",
    });
    expect(
      decideSlot({ ...base, after: [{ schedule: "build", latestStatus: "completed" }] }),
    ).toEqual({ kind: "launch" });
  });

  it("skips paused and disabled schedules, the global switch first", () => {
    expect(decideSlot({ ...base, paused: true })).toMatchObject({ kind: "skip", cause: "paused" });
    expect(decideSlot({ ...base, paused: true, globallyPaused: true })).toMatchObject({
      cause: "globally_paused",
    });
    expect(decideSlot({ ...base, enabled: false })).toMatchObject({ cause: "disabled" });
  });
});
