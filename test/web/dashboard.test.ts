// The overview page's summary and banners, rendered from data: what a user reads first.
import { describe, expect, it } from "vitest";
import type { FiringAlert } from "../../src/monitor/status.js";
import { type DashboardData, dashboardPage } from "../../src/web/dashboard-page.js";

const data = (extra: Partial<DashboardData>): DashboardData => ({
  overview: { rows: [], matched: 0, total: 0 },
  filter: "",
  firing: [],
  incidents: [],
  running: [],
  outbox: { backlog: 0, deadLetters: 0 },
  invalidFiles: [],
  allPaused: false,
  killSwitch: false,
  ...extra,
});
const ctx = { now: Date.parse("2026-11-27T01:00:00Z"), token: "t", actions: true, path: "/" };

describe("the overview", () => {
  it("counts every firing alert it lists, naming the muted ones", () => {
    const firing = [
      {
        fingerprint: "a",
        summary: "x",
        kind: "gate_stuck",
        firedAt: "2026-11-27T00:00:00Z",
        muted: "acked",
      },
    ] as FiringAlert[];
    const page = dashboardPage(data({ firing }), ctx);
    expect(page).toContain("<strong>1</strong> alerts firing");
    expect(page).toContain("(1 acked or silenced)");
  });

  it("names an invalid file once per problem, not again inside each one", () => {
    const invalidFiles = [
      {
        file: "schedules/broken.toml",
        problems: ['schedules/broken.toml: schedule[0].cron: found "61 * * * *"; expected a cron'],
      },
    ];
    const page = dashboardPage(data({ invalidFiles }), ctx);
    expect(page.match(/schedules\/broken\.toml/g)).toHaveLength(1);
    expect(page).toContain("schedule[0].cron: found");
  });
});
