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
  spend: [],
  ...extra,
});
const ctx = { now: Date.parse("2026-11-27T01:00:00Z"), token: "t", actions: true, path: "/" };

const period = (costUsd: number, extra: object = {}) => ({
  costUsd,
  tokens: 1000,
  runs: 2,
  unknownCost: 0,
  running: 0,
  reservedUsd: 0,
  reservedTokens: 0,
  ...extra,
});

describe("the overview", () => {
  it("shows each schedule's spend against its budget, and a budget that cannot hold", () => {
    const spend: DashboardData["spend"] = [
      {
        schedule: "nightly",
        timezone: "Europe/Berlin",
        day: "2026-11-27",
        month: "2026-11",
        today: period(20.5),
        thisMonth: period(45.1),
        budget: { perDayUsd: 20, perMonthUsd: 300, perRunUsd: 5 },
        exhausted: "budget exhausted: nightly spent $20.50 of its per_day $20.00",
        holds: "cost",
      },
      {
        schedule: "weekly",
        timezone: "UTC",
        day: "2026-11-27",
        month: "2026-11",
        today: period(0),
        thisMonth: period(1.25, { unknownCost: 2 }),
        budget: { perMonthUsd: 10 },
        holds: "cannot",
      },
    ];
    const page = dashboardPage(data({ spend }), ctx);
    expect(page).toContain("$20.50 of $20.00");
    expect(page).toContain("$45.10 of $300<");
    expect(page).toContain('<span class="state failing">spent</span>');
    expect(page).toContain("cannot hold");
    expect(page).toContain("+ 2 run(s) of unknown cost");
  });

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
