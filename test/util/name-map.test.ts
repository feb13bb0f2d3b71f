import { describe, expect, it } from "vitest";
import { NameMap } from "../../src/util/name-map.js";

describe("NameMap", () => {
  it("behaves as a Map that is only added to: lookups, replacement in place, insertion order", () => {
    const names = Array.from({ length: 5000 }, (_, i) => `job-${(i * 7919) % 5000}-${i % 13}`);
    const m = new NameMap<number>();
    const ref = new Map<string, number>();
    for (const [i, n] of names.entries()) {
      m.set(n, i);
      ref.set(n, i);
    }
    m.set(names[10]!, -1);
    ref.set(names[10]!, -1);
    expect(m.size).toBe(ref.size);
    expect([...m]).toEqual([...ref]);
    expect([...m.keys()]).toEqual([...ref.keys()]);
    expect([...m.values()]).toEqual([...ref.values()]);
    expect([...m.entries()]).toEqual([...ref.entries()]);
    for (const n of ["job-1-1", "nope", "", "job-4999-7"]) {
      expect(m.get(n)).toBe(ref.get(n));
      expect(m.has(n)).toBe(ref.has(n));
    }
    const seen: string[] = [];
    m.forEach((v, k, map) => {
      expect(map.get(k)).toBe(v);
      seen.push(k);
    });
    expect(seen).toEqual([...ref.keys()]);
  });
});
