import { describe, expect, it } from "vitest";
import { MinHeap } from "../../src/scheduler/timing/min-heap.js";

// A small deterministic generator, so a failure reproduces.
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe("MinHeap", () => {
  it("pops in order, ties broken by the comparator, across interleaved pushes and pops", () => {
    const rand = lcg(42);
    type Item = { at: number; name: string };
    const heap = new MinHeap<Item>((a, b) => a.at < b.at || (a.at === b.at && a.name < b.name));
    const model: Item[] = [];
    const byOrder = (a: Item, b: Item) => a.at - b.at || (a.name < b.name ? -1 : 1);
    for (let step = 0; step < 5000; step++) {
      if (rand() < 0.6 || model.length === 0) {
        const item = { at: Math.floor(rand() * 50), name: `s${step}` };
        heap.push(item);
        model.push(item);
      } else {
        model.sort(byOrder);
        expect(heap.pop()).toBe(model.shift());
      }
      expect(heap.size).toBe(model.length);
      model.sort(byOrder);
      expect(heap.peek()).toBe(model[0]);
    }
    while (model.length > 0) expect(heap.pop()).toBe(model.shift());
    expect(heap.pop()).toBeUndefined();
  });

  it("retain keeps only the accepted items, still in heap order", () => {
    const heap = new MinHeap<number>((a, b) => a < b);
    for (const n of [9, 3, 7, 1, 8, 2, 6, 4, 5, 0]) heap.push(n);
    heap.retain((n) => n % 2 === 1);
    const out: number[] = [];
    for (let n = heap.pop(); n !== undefined; n = heap.pop()) out.push(n);
    expect(out).toEqual([1, 3, 5, 7, 9]);
  });
});
