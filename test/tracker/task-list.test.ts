// An issue body's checkboxes read as task sync reads them, and ticked as it ticks them: only
// the `[ ]` of a box the team left as it was becomes `[x]`, every other byte of the body kept.
import { describe, expect, it } from "vitest";
import { boxDigest, checkboxes, tickBoxes } from "../../src/tracker/task-list.js";

const refOf = (ordinal: number, text: string) => ({ ordinal, digest: boxDigest(text) });

describe("the checkboxes of an issue body", () => {
  it("reads `-`, `*`, `+` and numbered items, nested and quoted, ticked or not", () => {
    const body = [
      "Intro - [ ] not an item",
      "- [ ] parse flags",
      "  * [x] nested, done",
      "    + [ ]   deeper  ",
      "1. [X] numbered",
      "2) [ ] other numbering",
      "> - [ ] quoted",
      "- [ ]",
      "- [] not a box",
      "-[ ] not an item",
    ].join("\n");
    expect(checkboxes(body).map((b) => [b.ordinal, b.line, b.checked, b.text])).toEqual([
      [0, 1, false, "parse flags"],
      [1, 2, true, "nested, done"],
      [2, 3, false, "deeper"],
      [3, 4, true, "numbered"],
      [4, 5, false, "other numbering"],
      [5, 6, false, "quoted"],
    ]);
  });

  it("leaves out boxes inside fenced code blocks, closed only by their own fence", () => {
    const body = [
      "- [ ] before",
      "```md",
      "- [ ] example",
      "~~~",
      "- [ ] still example",
      "````",
      "- [ ] after",
      "  ~~~~",
      "  - [ ] indented fence",
      "  ~~~~",
      "- [x] last",
    ].join("\n");
    expect(checkboxes(body).map((b) => b.text)).toEqual(["before", "after", "last"]);
  });

  it("reads CRLF bodies without the carriage return in the text", () => {
    const boxes = checkboxes("- [ ] one\r\n- [x] two\r\n");
    expect(boxes.map((b) => [b.text, b.checked])).toEqual([
      ["one", false],
      ["two", true],
    ]);
  });
});

describe("ticking boxes", () => {
  it("turns only the named boxes' `[ ]` into `[x]`, keeping every other byte", () => {
    const body = "Steps:\r\n- [ ] one\r\n  - [ ] two\r\n* [x] three\r\n```\r\n- [ ] one\r\n```\r\n";
    const out = tickBoxes(body, [refOf(0, "one"), refOf(2, "three")]);
    expect(out.body).toBe(
      "Steps:\r\n- [x] one\r\n  - [ ] two\r\n* [x] three\r\n```\r\n- [ ] one\r\n```\r\n",
    );
    expect(out.ticked).toEqual([refOf(0, "one")]);
    expect(out.already).toEqual([refOf(2, "three")]);
  });

  it("leaves a box the team edited or removed alone, and finds one that moved", () => {
    const then = ["- [ ] a", "- [ ] b", "- [ ] c"].join("\n");
    const refs = checkboxes(then).map((b) => refOf(b.ordinal, b.text));
    // Since: a new box on top, `b` reworded, `c` moved down by one.
    const now = ["- [ ] new", "- [ ] a", "- [ ] b, reworded", "- [ ] c"].join("\n");
    const out = tickBoxes(now, refs);
    expect(out.body).toBe(["- [ ] new", "- [x] a", "- [ ] b, reworded", "- [x] c"].join("\n"));
    expect(out.gone).toEqual([refs[1]]);
  });

  it("ticks no box whose text is now there twice off its place (which one is unknown)", () => {
    const out = tickBoxes("- [ ] x\n- [ ] dup\n- [ ] dup\n", [refOf(0, "dup")]);
    expect(out.body).toBe("- [ ] x\n- [ ] dup\n- [ ] dup\n");
    expect(out.gone).toHaveLength(1);
  });

  it("ticks two boxes with one text by their places", () => {
    const out = tickBoxes("- [ ] dup\n- [ ] dup\n", [refOf(0, "dup"), refOf(1, "dup")]);
    expect(out.body).toBe("- [x] dup\n- [x] dup\n");
  });
});
