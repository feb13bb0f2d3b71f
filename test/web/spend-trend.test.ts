// The Spend chart's figures, from a real ledger on disk: cost per day in each schedule's own
// zone, runs of unknown cost counted apart, the biggest spenders on their own and the rest
// summed, each with its budget.
import { afterEach, describe, expect, it } from "vitest";
import { dayAxis } from "../../src/scheduler/budget/daily-spend.js";
import { spendTrend } from "../../src/scheduler/budget/spend-trend.js";
import { defaultConfig } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { seedHistory } from "../helpers/seed-history.js";

afterEach(cleanupTempDirs);

function schedulesOf(entries: Array<{ name: string; zone?: string; budget?: string }>) {
  const text = entries
    .map(
      (e) =>
        `[[schedule]]\nname = "${e.name}"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "Fix"\ntimezone = "${e.zone ?? "UTC"}"\n${e.budget ? `budget = ${e.budget}\n` : ""}`,
    )
    .join("\n");
  const parsed = parseScheduleFile("s.toml", text, scheduleDefaults(defaultConfig("/srv")), {
    fileDir: "/srv/schedules",
    configDir: "/srv",
  });
  expect(parsed.problems).toEqual([]);
  return new Map<string, Schedule>(parsed.schedules.map((s) => [s.name, s]));
}

/** The runs written into a fresh state dir's ledger, and the ledger read back from disk. */
function ledgerWith(
  runs: Array<{
    schedule: string;
    at: string;
    cost?: number;
    running?: boolean;
    claimed?: boolean;
  }>,
) {
  const dir = tempDir("autoloop-trend-");
  seedHistory(
    dir,
    runs.map((r) => ({
      schedule: r.schedule,
      at: new Date(r.at),
      status: r.running ? ("running" as const) : ("completed" as const),
      ...(r.cost !== undefined && { costUsd: r.cost }),
      // Only the run's journal said what it spent, under a ceiling.
      ...(r.claimed && { ceilingUsd: 2, spendBasis: "journal" as const }),
    })),
  );
  return RunLedger.open(dir);
}

const NOW = Date.parse("2026-11-27T15:00:00Z");

describe("the Spend chart's figures", () => {
  it("counts each run on its own zone's day, and runs of unknown cost apart", () => {
    const schedules = schedulesOf([
      { name: "berlin", zone: "Europe/Berlin", budget: "{ per_day = 5.0, per_month = 60.0 }" },
      { name: "utc" },
    ]);
    const ledger = ledgerWith([
      { schedule: "berlin", at: "2026-10-20T10:00:00Z", cost: 99 }, // before the axis
      { schedule: "berlin", at: "2026-11-26T23:30:00Z", cost: 1.5 }, // the 27th in Berlin
      { schedule: "berlin", at: "2026-11-27T08:00:00Z" }, // no cost reported
      { schedule: "berlin", at: "2026-11-27T09:00:00Z", running: true },
      { schedule: "utc", at: "2026-11-26T23:30:00Z", cost: 2 },
      { schedule: "utc", at: "2026-11-25T12:00:00Z", cost: 0.25 },
      { schedule: "utc", at: "2026-11-26T12:00:00Z", cost: 0.5, claimed: true },
    ]);
    const trend = spendTrend(schedules, ledger, NOW, { days: 3 });
    expect(trend.days).toEqual(["2026-11-25", "2026-11-26", "2026-11-27"]);
    expect(trend.series).toEqual([
      { name: "utc", schedules: 1, costUsd: [0.25, 2.5, 0], unknownCost: [0, 1, 0] },
      {
        name: "berlin",
        schedules: 1,
        costUsd: [0, 0, 1.5],
        unknownCost: [0, 0, 1],
        perDayUsd: 5,
        perMonthUsd: 60,
      },
    ]);
  });

  it("shows the biggest spenders on their own and sums the rest", () => {
    const names = ["a", "b", "c", "d"];
    const schedules = schedulesOf([...names.map((name) => ({ name })), { name: "idle" }]);
    const ledger = ledgerWith([
      ...names.map((schedule, i) => ({ schedule, at: "2026-11-27T10:00:00Z", cost: i + 1 })),
      { schedule: "idle", at: "2026-11-27T10:00:00Z", cost: 0 },
    ]);
    const trend = spendTrend(schedules, ledger, NOW, { days: 2, shown: 2 });
    expect(trend.series.map((s) => [s.name, s.schedules, s.costUsd])).toEqual([
      ["d", 1, [0, 4]],
      ["c", 1, [0, 3]],
      ["2 other schedules", 2, [0, 3]],
    ]);
  });

  it("lays out days across a month's end", () => {
    expect(dayAxis("2026-03-01", 3)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"]);
  });
});
