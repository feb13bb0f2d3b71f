// Lines a failing disk refused: held in order, written once writes go through, reported.
import { describe, expect, it } from "vitest";
import { failingWriters, HeldLines } from "../../src/journal/held-lines.js";

describe("HeldLines", () => {
  it("holds every line behind the first refused one and writes them in order later", () => {
    const written: string[] = [];
    let full = false;
    const events: string[] = [];
    const lines = new HeldLines(
      (path, line) => {
        if (full)
          throw Object.assign(new Error("no space left on device, write"), { code: "ENOSPC" });
        written.push(`${path}:${line}`);
      },
      {
        trouble: (t) => events.push(`trouble ${t.error}`),
        recovered: (t) => events.push(`recovered after ${t.waiting}`),
      },
      () => new Date("2026-11-27T00:00:00Z"),
    );
    expect(lines.append("a", "1")).toBe(true);
    full = true;
    expect(lines.append("a", "2")).toBe(false);
    expect(lines.append("b", "3")).toBe(false);
    expect(lines.trouble()).toEqual({
      path: "a",
      error: "ENOSPC: no space left on device, write",
      since: "2026-11-27T00:00:00.000Z",
      waiting: 2,
    });
    expect(
      failingWriters({ ledger: { writeTrouble: () => lines.trouble() }, outbox: undefined }),
    ).toMatchObject([{ what: "ledger", waiting: 2 }]);
    full = false;
    // A new line never overtakes the held ones.
    expect(lines.append("a", "4")).toBe(true);
    expect(written).toEqual(["a:1", "a:2", "b:3", "a:4"]);
    expect(lines.trouble()).toBeUndefined();
    expect(events).toEqual(["trouble ENOSPC: no space left on device, write", "recovered after 2"]);
  });
});
