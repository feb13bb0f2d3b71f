import { describe, expect, it } from "vitest";
import { TurnQueue } from "../../src/util/turn-queue.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("TurnQueue", () => {
  it("handles at most perTurn items per turn of the event loop, oldest first", async () => {
    const handled: Array<[number, number]> = [];
    let turn = 0;
    const q = new TurnQueue<number>(
      2,
      (n) => handled.push([turn, n]),
      () => {},
    );
    for (let n = 1; n <= 5; n++) q.push(n);
    expect(handled).toEqual([]);
    while (q.size > 0 || handled.length < 5) {
      await nextTurn();
      turn++;
    }
    const turns = new Map<number, number[]>();
    for (const [t, n] of handled) turns.set(t, [...(turns.get(t) ?? []), n]);
    expect([...turns.values()]).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("goes on after an item that throws, telling onError which one", async () => {
    const handled: number[] = [];
    const failed: Array<[string, number]> = [];
    const q = new TurnQueue<number>(
      1,
      (n) => {
        if (n === 2) throw new Error("boom");
        handled.push(n);
      },
      (err, n) => failed.push([(err as Error).message, n]),
    );
    for (const n of [1, 2, 3]) q.push(n);
    while (handled.length + failed.length < 3) await nextTurn();
    expect(handled).toEqual([1, 3]);
    expect(failed).toEqual([["boom", 2]]);
    // Empty again, it starts afresh on the next push.
    q.push(4);
    while (handled.length < 3) await nextTurn();
    expect(handled).toEqual([1, 3, 4]);
  });
});

describe("TurnQueue.pushFirst", () => {
  it("handles an item pushed first in the next turn, ahead of those waiting", async () => {
    const seen: string[] = [];
    const q = new TurnQueue<string>(
      1,
      (s) => seen.push(s),
      () => {},
    );
    for (const s of ["a", "b", "c"]) q.push(s);
    await new Promise((r) => setImmediate(r));
    q.pushFirst("urgent");
    while (q.size > 0) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(["a", "urgent", "b", "c"]);
  });
});
