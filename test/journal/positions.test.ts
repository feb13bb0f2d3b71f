// The positions file: the same text whether each position is serialized afresh or reused.
import { describe, expect, it } from "vitest";
import { type JournalPosition, positionsText } from "../../src/journal/positions.js";

/** What the file held when it was one JSON.stringify (the format, docs/formats.md). */
function reference(positions: Map<string, JournalPosition>): string {
  const journals: Record<string, JournalPosition> = {};
  for (const path of [...positions.keys()].sort()) journals[path] = positions.get(path)!;
  return `${JSON.stringify({ version: 1, journals }, null, 2)}\n`;
}

const pos = (offset: number): JournalPosition => ({
  inode: 42,
  offset,
  lastLineStart: Math.max(0, offset - 10),
  lastLineHash: offset === 0 ? "" : "a".repeat(40),
});

describe("positionsText", () => {
  it("writes what one JSON.stringify of every position would, as positions are replaced", () => {
    const positions = new Map<string, JournalPosition>();
    expect(positionsText(positions)).toBe(reference(positions));
    positions.set("/p/b/journal.jsonl", pos(0));
    expect(positionsText(positions)).toBe(reference(positions));
    positions.set("/p/a/journal.jsonl", pos(120));
    positions.set('/p/"c"/journal.jsonl', pos(7));
    expect(positionsText(positions)).toBe(reference(positions));
    positions.set("/p/a/journal.jsonl", pos(250)); // committed further: a new object
    expect(positionsText(positions)).toBe(reference(positions));
    expect(JSON.parse(positionsText(positions)).journals["/p/a/journal.jsonl"].offset).toBe(250);
    // The same map with a journal gone, then another in its place (the same count of paths).
    positions.delete("/p/b/journal.jsonl");
    expect(positionsText(positions)).toBe(reference(positions));
    positions.set("/p/0/journal.jsonl", pos(3));
    expect(positionsText(positions)).toBe(reference(positions));
    positions.delete("/p/a/journal.jsonl");
    positions.set("/p/z/journal.jsonl", pos(9));
    expect(positionsText(positions)).toBe(reference(positions));
  });
});
