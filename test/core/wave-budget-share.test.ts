// A wave's branches share what is left of the run's budgets: run at once, each given all of
// it would let the wave spend that many times the rest.
import { describe, expect, it } from "vitest";
import { NO_SPEND } from "../../src/harness/loop/budget.js";
import { branchBudgets } from "../../src/harness/loop/wave-branch.js";

describe("branchBudgets", () => {
  it("splits what is left of the cost and token budgets among the branches", () => {
    const spent = { costUsd: 0.4, tokens: 400, unpriced: 0 };
    const b = branchBudgets(spent, { max_cost_usd: 1, max_tokens: 1000 }, 3);
    expect(b.max_cost_usd).toBeCloseTo(0.2);
    expect(b.max_tokens).toBe(200);
    // Together the branches can spend no more than the run had left.
    expect(3 * b.max_cost_usd).toBeLessThanOrEqual(1 - 0.4 + 1e-9);
  });

  it("keeps no budget as none, and a spent one as the least there is", () => {
    expect(branchBudgets(NO_SPEND, { max_cost_usd: 0, max_tokens: 0 }, 4)).toEqual({
      max_cost_usd: 0,
      max_tokens: 0,
    });
    const spent = { costUsd: 2, tokens: 5000, unpriced: 0 };
    const b = branchBudgets(spent, { max_cost_usd: 1, max_tokens: 1000 }, 2);
    expect(b.max_cost_usd).toBeGreaterThan(0);
    expect(b.max_tokens).toBe(1);
  });
});
