// An incident's Markdown on its page: rendered, not shown raw, and never markup of its own.
import { describe, expect, it } from "vitest";
import { formatEntry, newChangelog } from "../../src/incidents/changelog.js";
import { renderMarkdown } from "../../src/web/markdown.js";

describe("renderMarkdown", () => {
  it("renders a changelog: headings, bullets, code; the LIFO comment is gone", () => {
    const body = `Nightly fix keeps failing.\n\n${newChangelog(formatEntry("2026-11-27 03:00", "Fired", "run `r1` stopped: **max_iterations**"))}`;
    const out = renderMarkdown(body).text;
    expect(out).toContain("<p>Nightly fix keeps failing.</p>");
    expect(out).toContain("<h3>Changelog</h3>");
    expect(out).toContain("<h4>2026-11-27 03:00 - Fired</h4>");
    expect(out).toContain("<li>run <code>r1</code> stopped: <strong>max_iterations</strong></li>");
    expect(out).not.toContain("LIFO");
  });

  it("escapes whatever the text holds", () => {
    const out = renderMarkdown(
      "# <script>alert(1)</script>\n- <img src=x onerror=alert(1)>\n```\n<b>\n```",
    ).text;
    expect(out).not.toMatch(/<script|<img|<b>/);
    expect(out).toContain("&lt;script&gt;");
    expect(out).toContain("<pre>&lt;b&gt;</pre>");
  });
});
