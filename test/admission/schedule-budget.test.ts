// Schedule budgets: how they are written (and refused), what a schedule spent in its day and
// month (from a real ledger on disk), and what admission makes of it: a skip once a budget is
// spent, else a run capped at the least of per-run and what is left.
import { afterEach, describe, expect, it } from "vitest";
import { admitSlot } from "../../src/scheduler/admission/admission.js";
import { scheduleSpend, spendPeriods } from "../../src/scheduler/budget/spend.js";
import { budgetStanding } from "../../src/scheduler/budget/standing.js";
import { defaultConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import { launchArgv } from "../../src/scheduler/launch/spec.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import type { SpendBasis } from "../../src/scheduler/ledger/run-outcome.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const context = { fileDir: "/srv/cron/schedules", configDir: "/srv/cron" };
const entry = (extra: string) =>
  `[[schedule]]\nname = "nightly"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "Fix"\ntimezone = "Europe/Berlin"\n${extra}`;

function configOf(text: string) {
  const { config, problems: found } = parseConfigText("autoloop-cron.toml", text, "/srv/cron");
  return { config, problems: found.map(formatProblem) };
}

function parse(text: string, configText = "") {
  const defaults = scheduleDefaults(
    configText === "" ? defaultConfig("/srv/cron") : configOf(configText).config!,
  );
  return parseScheduleFile("schedules/s.toml", text, defaults, context);
}
const problems = (text: string) => parse(text).problems.map(formatProblem);
const scheduleOf = (text: string, configText = "") => {
  const { schedules, problems: found } = parse(text, configText);
  expect(found.map(formatProblem)).toEqual([]);
  return schedules[0]!;
};

/** Nothing paused, nothing running, room to launch: only the budget decides. */
const admissionState = (ledger: ReturnType<typeof ledgerWith>) => ({
  pause: { all: false, schedules: [] },
  killSwitch: false,
  running: [],
  runningTotal: 0,
  maxConcurrent: 4,
  ledger,
  now: NOW,
});

describe("a schedule's budget as written", () => {
  it("reads dollars and tokens, and [defaults]'s budget unless the schedule has its own", () => {
    expect(
      scheduleOf(entry("budget = { per_run = 5.0, per_day = 20, tokens_per_month = 9000000 }")),
    ).toMatchObject({ budget: { perRunUsd: 5, perDayUsd: 20, perMonthTokens: 9_000_000 } });
    const config = "[defaults]\nbudget = { per_month = 300.0 }\n";
    expect(scheduleOf(entry(""), config)).toMatchObject({ budget: { perMonthUsd: 300 } });
    expect(scheduleOf(entry("budget = { per_day = 2.5 }"), config)).toMatchObject({
      budget: { perDayUsd: 2.5 },
    });
    expect(scheduleOf(entry("budget = { per_day = 2.5 }"), config)).not.toMatchObject({
      budget: { perMonthUsd: 300 },
    });
    // A command schedule reports no spend: [defaults]'s budget is not its own.
    const command = scheduleOf(
      '[[schedule]]\nname = "c"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["true"]',
      config,
    );
    expect("budget" in command).toBe(false);
  });

  it("refuses a budget that is not a positive number, with the fix", () => {
    expect(
      problems(
        entry(
          'budget = { per_day = "$20", per_run = 0, per_month = -3, tokens_per_day = 1.5, per_week = 4 }',
        ),
      ),
    ).toEqual([
      "schedules/s.toml: schedule[0].budget.per_run: found 0; expected a number of US dollars greater than 0, such as 20.0 (leave the key out for no limit)",
      'schedules/s.toml: schedule[0].budget.per_day: found "$20"; expected a number of US dollars, such as 20.0 (budgets are in USD: write the number alone, without quotes, a $ sign or a currency)',
      "schedules/s.toml: schedule[0].budget.per_month: found -3; expected a number of US dollars greater than 0, such as 20.0 (leave the key out for no limit)",
      "schedules/s.toml: schedule[0].budget.tokens_per_day: found 1.5; expected a whole number of tokens, such as 2000000",
      'schedules/s.toml: schedule[0].budget.per_week: found unknown key "per_week"; expected one of the known keys: per_run, per_day, per_month, tokens_per_run, tokens_per_day, tokens_per_month',
    ]);
    expect(problems(entry("budget = {}"))).toEqual([
      "schedules/s.toml: schedule[0].budget: found {}; expected at least one of per_run, per_day, per_month (US dollars) or tokens_per_run, tokens_per_day, tokens_per_month",
    ]);
    expect(
      problems(
        '[[schedule]]\nname = "c"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["true"]\nbudget = { per_day = 1.0 }',
      ),
    ).toEqual([
      'schedules/s.toml: schedule[0].budget: found {"per_day":1}; expected no budget when kind = "command": a command reports no spend (run a preset to hold a budget)',
    ]);
  });

  it("refuses a bad budget in [defaults], naming the config file's field", () => {
    expect(configOf('[defaults]\nbudget = { per_day = "20 EUR" }\n').problems).toEqual([
      'autoloop-cron.toml: defaults.budget.per_day: found "20 EUR"; expected a number of US dollars, such as 20.0 (budgets are in USD: write the number alone, without quotes, a $ sign or a currency)',
    ]);
  });
});

describe("the periods a budget counts in", () => {
  it("are the schedule's own day and month, across a DST change", () => {
    // 2026-10-25 is 25 hours long in Berlin (clocks go back at 03:00 CEST).
    const p = spendPeriods(Date.parse("2026-10-25T12:00:00Z"), "Europe/Berlin");
    expect(p).toMatchObject({ day: "2026-10-25", month: "2026-10" });
    expect(new Date(p.dayStart).toISOString()).toBe("2026-10-24T22:00:00.000Z");
    expect(new Date(p.nextDay).toISOString()).toBe("2026-10-25T23:00:00.000Z");
    expect(new Date(p.monthStart).toISOString()).toBe("2026-09-30T22:00:00.000Z");
    expect(new Date(p.nextMonth).toISOString()).toBe("2026-10-31T23:00:00.000Z");
    // 23:30 UTC on the 31st is already November 1st in Berlin.
    const late = spendPeriods(Date.parse("2026-10-31T23:30:00Z"), "Europe/Berlin");
    expect(late).toMatchObject({ day: "2026-11-01", month: "2026-11" });
  });
});

/** A ledger on disk with runs of `nightly` at the given times, costs and states. */
function ledgerWith(
  runs: Array<{
    at: string;
    cost?: number;
    tokens?: number;
    unpriced?: number;
    running?: { budgetUsd: number };
    skipped?: boolean;
    /** An ended run's ceiling, and where its spend came from. */
    ceiling?: number;
    basis?: SpendBasis;
  }>,
): RunLedger {
  const dir = tempDir();
  let now = new Date(0);
  const ledger = RunLedger.open(dir, { now: () => now });
  for (const r of runs) {
    now = new Date(r.at);
    const runId = newScheduledRunId("nightly", now);
    const slot = { runId, schedule: "nightly", slot: now, trigger: "cron" as const };
    if (r.skipped) {
      ledger.skip({ ...slot, cause: "overlap" });
      continue;
    }
    ledger.schedule({
      ...slot,
      kind: "preset",
      argv: ["autoloop"],
      cwd: dir,
      ...(r.running && { budgetUsd: r.running.budgetUsd }),
      ...(r.ceiling !== undefined && { budgetUsd: r.ceiling }),
    });
    ledger.started(runId, { pid: 1, outputPath: "", journalPath: "", journalOffset: 0 });
    if (r.running) continue;
    ledger.finished(runId, {
      status: "completed",
      basis: "journal",
      durationMs: 1000,
      journalPath: "",
      ...(r.cost !== undefined && {
        spend: { costUsd: r.cost, tokens: r.tokens ?? 0, unpricedIterations: r.unpriced ?? 0 },
      }),
      ...(r.basis !== undefined && { spendBasis: r.basis }),
    });
  }
  // Read back from disk, as a restarted daemon (or `status`) would.
  return RunLedger.open(dir);
}

const NOW = Date.parse("2026-11-27T15:00:00Z");

describe("what a schedule spent", () => {
  it("sums its runs of today and of this month, from the ledger on disk", () => {
    const ledger = ledgerWith([
      { at: "2026-10-31T20:00:00Z", cost: 50 }, // October in Berlin: not counted
      { at: "2026-11-02T02:00:00Z", cost: 4, tokens: 1000 },
      { at: "2026-11-26T23:30:00Z", cost: 1.5, tokens: 300 }, // 00:30 on the 27th in Berlin
      { at: "2026-11-27T09:00:00Z", skipped: true },
      { at: "2026-11-27T10:00:00Z", tokens: 50, cost: 0.25, unpriced: 1 },
      { at: "2026-11-27T11:00:00Z" }, // no usage reported: unknown, not free
      { at: "2026-11-27T14:00:00Z", running: { budgetUsd: 3 } },
    ]);
    const { day, month, periods } = scheduleSpend(ledger, "nightly", "Europe/Berlin", NOW);
    expect(periods).toMatchObject({ day: "2026-11-27", month: "2026-11" });
    expect(day).toEqual({
      costUsd: 1.75,
      tokens: 350,
      runs: 3,
      unknownCost: 2,
      running: 1,
      reservedUsd: 3,
      reservedTokens: 0,
    });
    expect(month).toMatchObject({ costUsd: 5.75, tokens: 1350, runs: 4, unknownCost: 2 });
  });

  it("skips a slot once the day's budget is spent, and caps a run at what is left", () => {
    const ledger = ledgerWith([
      { at: "2026-11-27T08:00:00Z", cost: 6 },
      { at: "2026-11-27T09:00:00Z", cost: 3 },
    ]);
    const schedule = scheduleOf(entry("budget = { per_run = 5.0, per_day = 10.0 }"));
    const open = budgetStanding(schedule, ledger, NOW);
    expect(open).toMatchObject({ kind: "open", ceiling: { usd: 1 } });
    const roomy = budgetStanding(
      scheduleOf(entry("budget = { per_run = 5.0, per_day = 100.0, per_month = 12.5 }")),
      ledger,
      NOW,
    );
    expect(roomy).toMatchObject({ kind: "open", ceiling: { usd: 3.5 } });

    const spent = scheduleOf(entry("budget = { per_day = 9.0 }"));
    const standing = budgetStanding(spent, ledger, NOW);
    expect(standing).toMatchObject({ kind: "exhausted", period: "day", periodKey: "2026-11-27" });
    expect(standing?.kind === "exhausted" && standing.detail).toBe(
      "budget exhausted: nightly spent $9.00 of its per_day $9.00 for 2026-11-27 (Europe/Berlin); the next slot runs on 2026-11-27T23:00:00.000Z or once the budget is raised",
    );
    const state = admissionState(ledger);
    expect(admitSlot(spent, state).decision).toMatchObject({
      kind: "skip",
      cause: "budget_exhausted",
    });
    // The next day in Berlin, the schedule runs again.
    const tomorrow = Date.parse("2026-11-27T23:00:00Z");
    expect(admitSlot(spent, { ...state, now: tomorrow }).decision).toEqual({ kind: "launch" });
    // A token budget holds where cost is unknown.
    const tokens = scheduleOf(entry("budget = { tokens_per_run = 500 }"));
    expect(budgetStanding(tokens, ledger, NOW)).toMatchObject({ ceiling: { tokens: 500 } });
  });

  it("counts the ceilings of launches decided in the same pass, before their claims", () => {
    const ledger = ledgerWith([{ at: "2026-11-27T08:00:00Z", cost: 6 }]);
    const schedule = scheduleOf(entry("budget = { per_run = 2.5, per_day = 10.0 }"));
    const state = admissionState(ledger);
    // $4 left: the first launch of the pass holds $2.50, the second gets the $1.50 left.
    const first = admitSlot(schedule, state);
    expect(first.standing).toMatchObject({ kind: "open", ceiling: { usd: 2.5 } });
    const held = first.standing?.kind === "open" ? [first.standing.ceiling] : [];
    const second = admitSlot(schedule, { ...state, unclaimed: held });
    expect(second).toMatchObject({
      decision: { kind: "launch" },
      standing: { ceiling: { usd: 1.5 } },
    });
    const third = admitSlot(schedule, { ...state, unclaimed: [...held, { usd: 1.5 }] });
    expect(third.decision).toMatchObject({ kind: "skip", cause: "budget_exhausted" });
    expect(third.decision.kind === "skip" && third.decision.detail).toContain(
      "(2 running run(s) hold the rest)",
    );
  });

  it("counts a spend only the run's journal states as at least the run's ceiling", () => {
    const ledger = ledgerWith([
      { at: "2026-11-27T08:00:00Z", cost: 0.01, ceiling: 1, basis: "journal" }, // counts $1
      { at: "2026-11-27T09:00:00Z", cost: 2, ceiling: 1, basis: "journal" }, // its $2
      { at: "2026-11-27T10:00:00Z", cost: 0.01, ceiling: 1, basis: "harness" }, // as stated
      { at: "2026-11-27T11:00:00Z", cost: 0.5, basis: "journal" }, // no ceiling: as stated
    ]);
    const { day, unknown } = scheduleSpend(ledger, "nightly", "Europe/Berlin", NOW);
    expect(day.costUsd).toBeCloseTo(2.52);
    expect(unknown.day.usd).toBeCloseTo(0.99);
    expect(unknown.day.tokens).toBe(0);
    const standing = budgetStanding(scheduleOf(entry("budget = { per_day = 3.5 }")), ledger, NOW);
    expect(standing).toMatchObject({ kind: "exhausted", period: "day" });
  });

  it("hands the run its ceiling on the command line", () => {
    const argv = launchArgv({
      kind: "preset",
      runId: "r",
      schedule: "nightly",
      slot: new Date(NOW),
      cwd: "/p",
      outputPath: "/o",
      harness: ["autoloop"],
      preset: "autofix",
      objective: "Fix",
      budget: { usd: 1.25, tokens: 4000 },
    });
    expect(argv.join(" ")).toContain("--budget-usd 1.25 --budget-tokens 4000");
  });
});
