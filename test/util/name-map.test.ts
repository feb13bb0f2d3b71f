// NameMap behaves as a Map<string, V> (insertion order included) under any mix of operations.
import { describe, expect, it } from "vitest";
import { NameMap } from "../../src/util/name-map.js";
import { random } from "../helpers/random.js";

function same(map: NameMap<number>, model: Map<string, number>): void {
  expect(map.size).toBe(model.size);
  expect([...map]).toEqual([...model]);
  expect([...map.keys()]).toEqual([...model.keys()]);
  expect([...map.values()]).toEqual([...model.values()]);
}

describe("NameMap", () => {
  it("matches a Map on random operations (200 seeded sequences)", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = random(seed);
      const int = (n: number) => Math.floor(rand() * n);
      // Short random strings (empty included) and names alike.
      const key = () =>
        rand() < 0.5
          ? String.fromCharCode(...Array.from({ length: int(4) }, () => 97 + int(5)))
          : `team-${int(7)}-job-${int(400)}`;
      const map = new NameMap<number>();
      const model = new Map<string, number>();
      for (let step = 0; step < 300; step++) {
        const k = key();
        const roll = rand();
        if (roll < 0.55) {
          map.set(k, step);
          model.set(k, step);
        } else if (roll < 0.7) {
          const had = model.get(k);
          if (had === undefined) model.set(k, step);
          expect(map.setIfAbsent(k, step), `seed ${seed}`).toBe(had);
        } else if (roll < 0.98) expect(map.delete(k), `seed ${seed}`).toBe(model.delete(k));
        else {
          map.clear();
          model.clear();
        }
        expect(map.get(k), `seed ${seed}`).toBe(model.get(k));
        expect(map.has(k), `seed ${seed}`).toBe(model.has(k));
      }
      same(map, model);
    }
  });

  it("keeps its order and contents across compactions of many deletions", () => {
    const map = new NameMap<number>();
    const model = new Map<string, number>();
    for (let i = 0; i < 70_000; i++) {
      map.set(`s${i}`, i);
      model.set(`s${i}`, i);
    }
    for (let i = 0; i < 70_000; i += 3) {
      map.delete(`s${i}`);
      model.delete(`s${i}`);
    }
    for (let i = 0; i < 69_000; i++) {
      if (i % 2 === 0) continue;
      map.delete(`s${i}`);
      model.delete(`s${i}`);
    }
    map.set("s1", -1); // gone: goes to the end
    model.set("s1", -1);
    map.set("s69998", -2); // still there: keeps its place
    model.set("s69998", -2);
    same(map, model);
    const seen: [string, number][] = [];
    map.forEach((v, k, m) => {
      expect(m).toBe(map);
      seen.push([k, v]);
    });
    expect(seen).toEqual([...model]);
    expect(new NameMap(model.entries()).get("s69998")).toBe(-2);
  });
});
