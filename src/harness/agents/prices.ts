// What one agent call cost: the cost the agent reported, or its tokens at the preset's prices or
// the shipped price table (each agent module lists its models'), as `backend.usage` fields.
import type { FieldValue } from "../../journal/codec.js";
import { AGENTS } from "./index.js";
import { type AgentUsage, type ModelPrice, totalTokens } from "./usage.js";

/** The date the shipped prices were taken from the providers' price pages. */
export const PRICE_TABLE_DATE = "2026-11-01";

// List prices per million tokens, by model id prefix (the longest match wins), from each
// agent's module. Prompts over 200k tokens cost more on some models; an agent loop's
// iterations rarely reach that.
const SHIPPED_PRICES: Readonly<Record<string, ModelPrice>> = Object.assign(
  {},
  ...Object.values(AGENTS).map((agent) => agent.prices ?? {}),
);

export type PriceOverrides = Readonly<
  Record<string, Partial<ModelPrice> & { input: number; output: number }>
>;

/** The price of a model: the preset's own entry (exact id or prefix), else the shipped table. */
export function priceOf(
  model: string,
  overrides: PriceOverrides = {},
): { price: ModelPrice; source: "config" | "price_table" } | undefined {
  const own = longestPrefix(model, overrides);
  if (own !== undefined)
    return {
      price: { cache_read: own.input, cache_write: own.input, ...own },
      source: "config",
    };
  const shipped = longestPrefix(model, SHIPPED_PRICES);
  return shipped === undefined ? undefined : { price: shipped, source: "price_table" };
}

function longestPrefix<T>(model: string, table: Readonly<Record<string, T>>): T | undefined {
  const id = model.toLowerCase().replace(/^models\//, "");
  let best: string | undefined;
  for (const key of Object.keys(table))
    if (id.startsWith(key.toLowerCase()) && (best === undefined || key.length > best.length))
      best = key;
  return best === undefined ? undefined : table[best];
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

/**
 * The `backend.usage` record's fields: tokens and `cost_usd` in the public autoloop's order,
 * then ours: the model and where the cost came from (`cost_source`: the agent, the preset's
 * prices, the shipped table). A cost nobody knows is left out (`cost_source = "unknown"`),
 * never written as 0.
 */
export function usageFields(
  usage: AgentUsage,
  overrides: PriceOverrides = {},
): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_tokens: usage.cache_read_tokens,
    cache_write_tokens: usage.cache_write_tokens,
    total_tokens: totalTokens(usage),
  };
  const model = { model: usage.model };
  if (usage.cost_usd !== undefined)
    return { ...fields, cost_usd: round(usage.cost_usd), ...model, cost_source: "agent" };
  const priced = priceOf(usage.model, overrides);
  if (priced === undefined) return { ...fields, ...model, cost_source: "unknown" };
  const p = priced.price;
  const cost = round(
    (usage.input_tokens * p.input +
      usage.output_tokens * p.output +
      usage.cache_read_tokens * p.cache_read +
      usage.cache_write_tokens * p.cache_write) /
      1e6,
  );
  return {
    ...fields,
    cost_usd: cost,
    ...model,
    cost_source: priced.source,
    ...(priced.source === "price_table" && { price_table: PRICE_TABLE_DATE }),
  };
}
