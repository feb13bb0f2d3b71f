// A run's spend against event_loop.max_cost_usd and max_tokens (pure).
import { describe, expect, it } from "vitest";
import { presetStats } from "../../src/harness/artifacts/stats.js";
import { runUsage } from "../../src/harness/artifacts/usage.js";
import {
  addUsage,
  budgetStop,
  capLimits,
  costLeft,
  NO_SPEND,
  spendFields,
} from "../../src/harness/loop/budget.js";
import type { JournalRecord } from "../../src/journal/codec.js";

const usage = (cost_usd: number | undefined, total_tokens: number) => ({
  model: "m",
  total_tokens,
  ...(cost_usd !== undefined && { cost_usd }),
});

describe("run budgets", () => {
  it("stops at the iteration whose cost reaches max_cost_usd, with the public autoloop's fields", () => {
    const limits = { max_cost_usd: 0.25, max_tokens: 0 };
    let spend = addUsage(NO_SPEND, usage(0.1, 1000));
    expect(budgetStop(spend, limits, 1)).toBeUndefined();
    expect(costLeft(spend, limits)).toBeCloseTo(0.15, 10);
    spend = addUsage(spend, usage(0.15, 1000));
    expect(budgetStop(spend, limits, 2)).toEqual({
      reason: "cost_budget",
      fields: { completed_iterations: "2", cost_usd: "0.250000", max_cost_usd: "0.25" },
    });
    expect(costLeft(spend, limits)).toBe(0);
  });

  it("takes the lower of the preset's budget and a launcher's ceiling, never raising it", () => {
    const own = { max_cost_usd: 2, max_tokens: 0 };
    expect(capLimits(own, { usd: 5 })).toEqual({ max_cost_usd: 2, max_tokens: 0 });
    expect(capLimits(own, { usd: 0.5, tokens: 900 })).toEqual({
      max_cost_usd: 0.5,
      max_tokens: 900,
    });
    expect(capLimits({ max_cost_usd: 0, max_tokens: 100 }, { usd: 3 })).toEqual({
      max_cost_usd: 3,
      max_tokens: 100,
    });
    expect(capLimits(own, {})).toEqual(own);
  });

  it("counts an iteration without a known cost as unpriced, never as free", () => {
    const limits = { max_cost_usd: 0.2, max_tokens: 0 };
    let spend = addUsage(NO_SPEND, undefined); // no usage reported
    spend = addUsage(spend, usage(undefined, 500)); // a model without a price
    expect(spend).toEqual({ costUsd: 0, tokens: 500, unpriced: 2 });
    spend = addUsage(spend, usage(0.3, 10));
    expect(budgetStop(spend, limits, 3)?.fields.unpriced_iterations).toBe("2");
  });

  it("stops on tokens with max_tokens, and never with both budgets at 0", () => {
    const spend = addUsage(addUsage(NO_SPEND, usage(undefined, 600)), usage(undefined, 600));
    expect(budgetStop(spend, { max_cost_usd: 0, max_tokens: 1000 }, 2)).toEqual({
      reason: "token_budget",
      fields: { completed_iterations: "2", tokens: "1200", max_tokens: "1000" },
    });
    expect(budgetStop(spend, { max_cost_usd: 0, max_tokens: 0 }, 2)).toBeUndefined();
    expect(costLeft(spend, { max_cost_usd: 0, max_tokens: 0 })).toBeUndefined();
  });
});

describe("autoloop inspect usage's projection", () => {
  const sys = (run: string, topic: string, iteration: string, fields: Record<string, unknown>) =>
    ({ shape: "system", run, iteration, topic, ts: "t", v: 1, fields }) as JournalRecord;

  it("sums each run's tokens and known cost, and counts the iterations of unknown cost", () => {
    const records = [
      sys("a", "iteration.finish", "1", {}),
      sys("a", "backend.usage", "1", {
        model: "m1",
        total_tokens: 100,
        input_tokens: 60,
        output_tokens: 40,
        cost_usd: 0.01,
      }),
      sys("b", "iteration.finish", "1", {}),
      // The public autoloop's writers may give numbers as strings.
      sys("b", "backend.usage", "1", { model: "m2", total_tokens: "50", cost_usd: "0.5" }),
      sys("a", "iteration.finish", "2", {}),
      sys("a", "backend.usage", "2", { model: "m3", total_tokens: 10, cost_source: "unknown" }),
      sys("a", "iteration.finish", "3", {}), // no usage reported at all
      sys("c", "loop.start", undefined as unknown as string, {}),
    ];
    expect(runUsage(records)).toEqual([
      {
        run: "a",
        iterations: 3,
        input_tokens: 60,
        output_tokens: 40,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        total_tokens: 110,
        cost_usd: 0.01,
        unpriced_iterations: 2,
        models: ["m1", "m3"],
      },
      {
        run: "b",
        iterations: 1,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        total_tokens: 50,
        cost_usd: 0.5,
        unpriced_iterations: 0,
        models: ["m2"],
      },
    ]);
  });
});

describe("autoloop stats' projection", () => {
  const rec = (run: string, topic: string, ts: string, fields: Record<string, unknown> = {}) =>
    ({ shape: "system", run, topic, ts, v: 1, fields }) as JournalRecord;

  it("counts outcomes per preset, means over finished runs, and cost of all", () => {
    const records = [
      rec("a", "loop.start", "2026-11-27T10:00:00.000Z", { preset: "autofix" }),
      rec("a", "iteration.finish", "2026-11-27T10:00:05.000Z"),
      rec("a", "backend.usage", "2026-11-27T10:00:05.000Z", { cost_usd: 0.2, total_tokens: 5 }),
      rec("a", "loop.complete", "2026-11-27T10:00:10.000Z", { reason: "completion_event" }),
      rec("b", "loop.start", "2026-11-27T11:00:00.000Z", { preset: "autofix" }),
      rec("b", "iteration.finish", "2026-11-27T11:00:10.000Z"),
      rec("b", "iteration.finish", "2026-11-27T11:00:20.000Z"),
      rec("b", "iteration.finish", "2026-11-27T11:00:25.000Z"),
      rec("b", "loop.stop", "2026-11-27T11:00:30.000Z", { reason: "cost_budget" }),
      rec("c", "loop.start", "2026-11-27T12:00:00.000Z", { preset: "autofix" }),
      rec("c", "iteration.finish", "2026-11-27T12:00:01.000Z"), // no usage: unknown cost
      rec("d", "loop.start", "2026-11-27T12:00:00.000Z", { preset: "review" }),
      rec("d", "loop.stop", "2026-11-27T12:00:02.000Z", { reason: "auth_failed" }),
    ];
    expect(presetStats(records)).toEqual([
      {
        preset: "autofix",
        runs: 2,
        completed: 1,
        failed: 0,
        stopped: 1,
        interrupted: 0,
        unfinished: 1,
        success_rate: 0.5,
        mean_iterations: 2,
        mean_duration_s: 20,
        cost_usd: 0.2,
        runs_with_unknown_cost: 2,
      },
      {
        preset: "review",
        runs: 1,
        completed: 0,
        failed: 1,
        stopped: 0,
        interrupted: 0,
        unfinished: 0,
        success_rate: 0,
        mean_iterations: 0,
        mean_duration_s: 2,
        cost_usd: 0,
        runs_with_unknown_cost: 0,
      },
    ]);
  });
});

describe("what a terminal record says a run spent", () => {
  it("says nothing when nothing is known, and counts unknown iterations apart", () => {
    expect(spendFields(NO_SPEND, 0)).toEqual({});
    const silent = addUsage(addUsage(NO_SPEND, undefined), undefined);
    expect(spendFields(silent, 2)).toEqual({}); // an agent that reported no usage: not $0
    const some = addUsage(silent, { model: "m", total_tokens: 10, cost_usd: 0.5 });
    expect(spendFields(some, 3)).toEqual({
      cost_usd: "0.500000",
      total_tokens: "10",
      unpriced_iterations: "2",
    });
  });
});
