import { describe, expect, it } from "vitest";
import { formatEntry, prependEntry } from "../../src/incidents/changelog.js";
import { matchSlug, slugify } from "../../src/incidents/slug.js";

describe("slugify", () => {
  it("lowercases, hyphenates, folds accents and drops path characters", () => {
    expect(slugify("Gate stuck: nightly-refactor (run 42)")).toBe(
      "gate-stuck-nightly-refactor-run-42",
    );
    expect(slugify("../../etc/passwd")).toBe("etc-passwd");
    expect(slugify("Déjà vu — Über")).toBe("deja-vu-uber");
    expect(slugify("!!!")).toBe("");
  });

  it("caps the length at a word boundary", () => {
    const slug = slugify("word ".repeat(40));
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(slug).toMatch(/^word(-word)*$/);
    expect(slugify("x".repeat(100))).toBe("x".repeat(60));
  });
});

describe("matchSlug", () => {
  const slugs = ["disk-full", "disk-full-again", "gate-stuck-nightly", "nightly-failed"];

  it("prefers an exact slug, then a unique prefix, then a unique substring", () => {
    expect(matchSlug(slugs, "Disk full")).toEqual({
      kind: "found",
      slug: "disk-full",
      by: "exact",
    });
    expect(matchSlug(slugs, "gate")).toEqual({
      kind: "found",
      slug: "gate-stuck-nightly",
      by: "prefix",
    });
    expect(matchSlug(slugs, "failed")).toEqual({
      kind: "found",
      slug: "nightly-failed",
      by: "substring",
    });
  });

  it("reports ambiguity with the candidates, and misses", () => {
    expect(matchSlug(slugs, "disk-f")).toEqual({
      kind: "ambiguous",
      by: "prefix",
      candidates: ["disk-full", "disk-full-again"],
    });
    expect(matchSlug(slugs, "nightly")).toEqual({
      kind: "found",
      slug: "nightly-failed",
      by: "prefix",
    });
    expect(matchSlug(slugs, "stuck")).toMatchObject({ kind: "found", by: "substring" });
    expect(matchSlug(slugs, "full")).toEqual({
      kind: "ambiguous",
      by: "substring",
      candidates: ["disk-full", "disk-full-again"],
    });
    expect(matchSlug(slugs, "zzz")).toEqual({ kind: "none" });
    expect(matchSlug(slugs, "  ")).toEqual({ kind: "none" });
  });
});

describe("changelog", () => {
  it("formats an entry with one bullet per non-blank line", () => {
    expect(formatEntry("2026-04-07T12:00:00.000Z", "Update", "first\n\nsecond  ")).toBe(
      "### 2026-04-07T12:00:00.000Z - Update\n- first\n- second",
    );
  });

  it("inserts after the heading and the LIFO comment, before older entries", () => {
    const body = "\nNotes.\n\n## Changelog\n<!-- LIFO: newest entry at top -->\n\n### old\n- a\n";
    expect(prependEntry(body, "### new\n- b")).toBe(
      "\nNotes.\n\n## Changelog\n<!-- LIFO: newest entry at top -->\n\n### new\n- b\n\n### old\n- a\n",
    );
  });

  it("works without the comment and recreates a deleted section", () => {
    expect(prependEntry("## Changelog\n### old\n", "### new")).toBe(
      "## Changelog\n\n### new\n\n### old\n",
    );
    expect(prependEntry("Just prose.\n", "### new")).toBe(
      "Just prose.\n\n## Changelog\n<!-- LIFO: newest entry at top -->\n\n### new\n",
    );
  });
});
