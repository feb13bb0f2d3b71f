// A run's spend against its budget: `event_loop.max_cost_usd` (the public autoloop's key, stop
// reason `cost_budget`) and `event_loop.max_tokens` (stop reason `token_budget`, for agents
// whose price nobody knows), summed from the `backend.usage` records the loop writes. 0 means
// no budget. An iteration whose cost is unknown is counted as such, never as free.
import type { FieldValue } from "../../journal/codec.js";
import type { SpentFigures } from "../control/end-record.js";

export interface RunSpend {
  costUsd: number;
  tokens: number;
  /** Iterations whose cost is unknown (no usage reported, or a model without a price). */
  unpriced: number;
}

export interface BudgetLimits {
  max_cost_usd: number;
  max_tokens: number;
}

export const NO_SPEND: RunSpend = { costUsd: 0, tokens: 0, unpriced: 0 };

/** `spend` with one iteration's `backend.usage` fields added (undefined: it reported none). */
export function addUsage(
  spend: RunSpend,
  fields: Record<string, FieldValue> | undefined,
): RunSpend {
  const cost = fields?.cost_usd;
  const tokens = fields?.total_tokens;
  return {
    costUsd: spend.costUsd + (typeof cost === "number" ? cost : 0),
    tokens: spend.tokens + (typeof tokens === "number" ? tokens : 0),
    unpriced: spend.unpriced + (typeof cost === "number" ? 0 : 1),
  };
}

/** The stop a spent budget calls for after `completed` iterations, if any. */
export function budgetStop(
  spend: RunSpend,
  limits: BudgetLimits,
  completed: number,
): { reason: "cost_budget" | "token_budget"; fields: Record<string, string> } | undefined {
  if (limits.max_cost_usd > 0 && spend.costUsd >= limits.max_cost_usd)
    return {
      reason: "cost_budget",
      fields: {
        completed_iterations: String(completed),
        cost_usd: spend.costUsd.toFixed(6),
        max_cost_usd: String(limits.max_cost_usd),
        ...(spend.unpriced > 0 && { unpriced_iterations: String(spend.unpriced) }),
      },
    };
  if (limits.max_tokens > 0 && spend.tokens >= limits.max_tokens)
    return {
      reason: "token_budget",
      fields: {
        completed_iterations: String(completed),
        tokens: String(spend.tokens),
        max_tokens: String(limits.max_tokens),
      },
    };
  return undefined;
}

/** What is left of the cost budget, for an agent that can cap its own spend; undefined: none. */
export function costLeft(spend: RunSpend, limits: BudgetLimits): number | undefined {
  return limits.max_cost_usd > 0 ? Math.max(0, limits.max_cost_usd - spend.costUsd) : undefined;
}

/** What a run's process spent, as numbers: its terminal record and `end.json` state these. */
/**
 * What `calls` agent calls spent; undefined when nothing is known: no call, or an agent that
 * reported no usage at all (not a run that cost 0).
 */
export type { SpentFigures };

export function spentFigures(spend: RunSpend, calls: number): SpentFigures | undefined {
  if (calls === 0 || (spend.unpriced >= calls && spend.tokens === 0)) return undefined;
  const costUsd = Number(spend.costUsd.toFixed(6));
  return { costUsd, totalTokens: spend.tokens, unpricedIterations: spend.unpriced };
}

/**
 * What a run spent, as its terminal record (`loop.complete`/`loop.stop`) says it: `cost_usd`
 * (six decimals), `total_tokens`, and `unpriced_iterations` when some iterations' cost is
 * unknown. Nothing when nothing is known (`spentFigures`).
 */
export function spendFields(spend: RunSpend, calls: number): Record<string, string> {
  const figures = spentFigures(spend, calls);
  if (figures === undefined) return {};
  return {
    cost_usd: figures.costUsd.toFixed(6),
    total_tokens: String(figures.totalTokens),
    ...(figures.unpricedIterations > 0 && {
      unpriced_iterations: String(figures.unpricedIterations),
    }),
  };
}

/**
 * The limits with a ceiling put on them by whoever launched the run (`autoloop run
 * --budget-usd/--budget-tokens`, what a schedule's budget leaves): the lower one holds, so a
 * ceiling never raises the preset's own budget. A ceiling of undefined leaves the limit be.
 */
export function capLimits(
  limits: BudgetLimits,
  ceiling: { usd?: number; tokens?: number },
): BudgetLimits {
  const lower = (own: number, cap: number | undefined) =>
    cap === undefined ? own : own > 0 ? Math.min(own, cap) : cap;
  return {
    max_cost_usd: lower(limits.max_cost_usd, ceiling.usd),
    max_tokens: lower(limits.max_tokens, ceiling.tokens),
  };
}
