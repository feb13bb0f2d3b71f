// A schedule's page rendered from data: its charts well-formed inside the HTML, what a schedule
// without runs or spend shows, and names escaped wherever they appear (title, chart, badge).
import { describe, expect, it } from "vitest";
import type { ScheduleRow } from "../../src/operator/overview.js";
import type { SpendRow } from "../../src/scheduler/budget/spend-rows.js";
import { type SchedulePageData, schedulePage } from "../../src/web/schedule-page.js";
import { xmlProblem } from "../helpers/xml.js";

const ctx = { now: Date.parse("2026-11-27T12:00:00Z"), token: "t", actions: true, path: "/" };
const none = {
  costUsd: 0,
  tokens: 0,
  runs: 0,
  unknownCost: 0,
  running: 0,
  reservedUsd: 0,
  reservedTokens: 0,
};

function data(name: string, recent: ScheduleRow["recent"]): SchedulePageData {
  const row: ScheduleRow = {
    name,
    cron: "0 2 * * *",
    timezone: "UTC",
    kind: "preset",
    target: "autofix",
    file: "schedules/s.toml",
    enabled: true,
    paused: false,
    state: "active",
    consecutiveFailures: 0,
    running: [],
    recent,
  };
  const spend: SpendRow = {
    schedule: name,
    timezone: "UTC",
    day: "2026-11-27",
    month: "2026-11",
    today: none,
    thisMonth: none,
    holds: "none",
  };
  return {
    row,
    spend,
    trend: { days: ["2026-11-27"], series: [] },
    badgeUrl: `http://127.0.0.1:9464/schedules/${encodeURIComponent(name)}/badge.svg`,
  };
}

describe("a schedule's page", () => {
  it("shows its runs as bars and as a table, every SVG in it well-formed", () => {
    const page = schedulePage(
      data("nightly", [
        {
          runId: "nightly-20261127T0200-aaaaa",
          status: "failed",
          stopReason: "backend_failed",
          at: "2026-11-27T02:03:00Z",
          durationMs: 180_000,
          costUsd: 1.5,
        },
        {
          runId: "nightly-20261126T0200-bbbbb",
          status: "completed",
          at: "2026-11-26T02:02:00Z",
          durationMs: 120_000,
        },
      ]),
      ctx,
    );
    const svgs = [...page.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => m[0]);
    expect(svgs).toHaveLength(1);
    expect(xmlProblem(svgs[0]!)).toBeUndefined();
    expect(page).toContain("Last 2 runs of nightly, oldest to newest: 1 completed, 1 failed");
    expect(page).toContain(
      '<td><span class="status-failed">failed</span> <span class="muted">(backend_failed)</span></td>',
    );
    expect(page).toContain("<td>3m</td><td>$1.5000</td>");
    expect(page).toContain('<span class="muted">not reported</span>');
    // The badge follows the row's state (the monitor's streak), here "active" with an ended run.
    expect(page).toContain('alt="nightly: passing"');
  });

  it("says so when it has no runs and no spend", () => {
    const page = schedulePage(data("fresh", []), ctx);
    expect(page).toContain("No runs yet.");
    expect(page).toContain("No runs of fresh yet.");
    expect(page).toContain("No spend recorded in these days, and no dollar budget.");
    expect(page).toContain('alt="fresh: no runs"');
  });

  it("says when its budget is spent, and what it spent against it", () => {
    const d = data("nightly", []);
    d.spend = {
      ...d.spend,
      today: { ...none, costUsd: 4.5, runs: 2 },
      budget: { perDayUsd: 4 },
      exhausted: "budget exhausted: nightly spent $4.50 of its per_day $4.00 for 2026-11-27 (UTC)",
      holds: "cost",
    };
    const page = schedulePage(d, ctx);
    expect(page).toContain(
      '<dt>Spend</dt><dd><span class="state failing">spent</span> budget exhausted: nightly spent $4.50 of its per_day $4.00 for 2026-11-27 (UTC)<br>today $4.50 of $4.00; 2026-11 $0.00</dd>',
    );
  });

  it("escapes the name wherever it shows", () => {
    const page = schedulePage(data('a"<b>', []), ctx);
    expect(page).not.toContain("<b>");
    expect(page).toContain("<h1>Schedule a&quot;&lt;b&gt;</h1>");
    expect(page).toContain('src="/schedules/a%22%3Cb%3E/badge.svg"');
  });
});
