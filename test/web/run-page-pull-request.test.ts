// A run's page shows the pull request its commits went to; a link only for a web address.
import { describe, expect, it } from "vitest";
import type { RunDetail } from "../../src/operator/run-detail.js";
import { runPage } from "../../src/web/detail-pages.js";

const ctx = {
  now: Date.parse("2026-11-29T03:00:00Z"),
  token: "t",
  actions: false,
  path: "/runs/r1",
};

function detail(pullRequest?: string): RunDetail {
  return {
    summary: {
      runId: "r1",
      schedule: "simplify",
      slot: "2026-11-29T02:00:00.000Z",
      status: "completed",
      ...(pullRequest !== undefined && { pullRequest }),
    },
    events: [],
    journal: { lines: [], omitted: 0 },
    iterations: { steps: [], omitted: 0 },
    unreadable: [],
  };
}

describe("a run's page", () => {
  it("links the run's pull request", () => {
    const page = runPage(detail("https://github.com/octo/app/pull/7"), ctx);
    expect(page).toContain(
      '<dt>Pull request</dt><dd><a href="https://github.com/octo/app/pull/7">https://github.com/octo/app/pull/7</a></dd>',
    );
    expect(runPage(detail(), ctx)).not.toContain("Pull request");
    expect(runPage(detail("javascript:alert(1)"), ctx)).not.toContain('href="javascript');
  });
});
