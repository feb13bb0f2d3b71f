// LruMap: bounded, forgets the least recently used entry first.
import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/util/lru-map.js";

describe("LruMap", () => {
  it("keeps at most `limit` entries, dropping the one used least recently", () => {
    const lru = new LruMap<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1); // a is now the most recent
    lru.set("c", 3); // b goes
    expect(lru.size).toBe(2);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe(1);
    lru.set("c", 30); // an update is a use: a goes next
    lru.set("d", 4);
    expect(lru.get("a")).toBeUndefined();
    expect([lru.get("c"), lru.get("d")]).toEqual([30, 4]);
  });
});
