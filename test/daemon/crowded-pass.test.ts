// Room for a crowded pass: when the young generation is nearly full shortly before a thousand
// slots come due, its scavenge is brought forward (real V8 heap, no mocks).
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { makeRoomForPass } from "../../src/daemon/crowded-pass.js";

const youngAvailable = () =>
  getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_available_size;

/** Short-lived garbage until the young generation has less than `bytes` left. */
const sink: unknown[] = [undefined];
function fillYoungTo(bytes: number): void {
  for (let i = 0; i < 100_000 && youngAvailable() >= bytes; i++) sink[0] = new Array(256);
  sink[0] = undefined;
}

describe("makeRoomForPass", () => {
  it("leaves a pass too small to be crowded alone", () => {
    fillYoungTo(16 * 1024);
    expect(makeRoomForPass(99)).toBe(false);
  });

  it("brings the scavenge forward when the young generation lacks room for the pass", () => {
    fillYoungTo(16 * 1024);
    const before = youngAvailable();
    expect(before).toBeLessThan(16 * 1024);
    expect(makeRoomForPass(1000)).toBe(true);
    expect(youngAvailable()).toBeGreaterThan(before);
  });

  it("finds the room it made: a second call right after does nothing", () => {
    fillYoungTo(16 * 1024);
    expect(makeRoomForPass(1000)).toBe(true);
    // The scavenge it brought forward left the room: a second call finds it.
    expect(makeRoomForPass(1000)).toBe(false);
  });
});
