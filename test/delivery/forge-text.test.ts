// The report's text on a forge: mentions, closing words, quick actions and HTML comments made
// inert, everything else kept as it was.
import { describe, expect, it } from "vitest";
import { inertForgeText } from "../../src/delivery/forge-text.js";

const visible = (text: string) => text.replaceAll("\u200b", "");

describe("inertForgeText", () => {
  it.each([
    ["Closes #999", /Closes #999/],
    ["fixes: other/repo#5, #6 and #7", /fixes: other\/repo#5/],
    ["Resolved https://github.com/o/r/issues/1", /Resolved https/],
    ["implements issue #4", /implements issue #4/],
    ["Fixes PROJ-12", /Fixes PROJ-12/],
    ["ping @octo/admins and @everyone", /@octo|@everyone/],
    ["/approve\n  /merge", /^\s*\/\w/m],
    ["<!-- autoloop-cron:review:other -->", /<!--/],
  ])("%j: no forge acts on it, and it reads the same", (text, active) => {
    const inert = inertForgeText(text);
    expect(inert).not.toMatch(active);
    expect(visible(inert)).toBe(text);
  });

  it("shows a control character as its code: no escape reaches a terminal, nothing is reordered", () => {
    expect(inertForgeText("safe \u202egnp.exe")).toBe("safe <U+202E>gnp.exe");
    expect(inertForgeText("a\u001b]0;t\u0007\r\n\tb")).toBe("a<U+1B>]0;t<U+7>\r\n\tb");
  });

  it("leaves plain prose, addresses and paths alone", () => {
    const prose = "Fixed the parser; see docs/a.md and mail ops@example.com (#12 is related).";
    expect(inertForgeText(prose)).toBe(prose);
  });
});
