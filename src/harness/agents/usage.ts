// What one agent call used and cost: tokens as the API counted them, normalised to the public
// autoloop's `backend.usage` fields, and the cost the agent reported or the price table gives.
import type { FieldValue } from "../../journal/codec.js";

/** Tokens one agent call used. Input excludes cached input; cache reads and writes are apart. */
export interface AgentUsage {
  /** The model the CLI used ("" when it did not say). */
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** The cost the CLI reported itself (Claude Code does), in USD. */
  cost_usd?: number;
}

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** The date the shipped prices were taken from the providers' price pages. */
export const PRICE_TABLE_DATE = "2026-11-01";

// List prices per million tokens, by model id prefix (the longest match wins). Prompts
// over 200k tokens cost more on some models; an agent loop's iterations rarely reach that.
const SHIPPED_PRICES: Readonly<Record<string, ModelPrice>> = {
  "claude-opus-4-5": { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
  "claude-opus-4": { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
  "claude-sonnet-4": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  "claude-haiku-4-5": { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cache_read: 0.08, cache_write: 1 },
  "gpt-5.1-codex-mini": { input: 0.25, output: 2, cache_read: 0.025, cache_write: 0 },
  "gpt-5-codex-mini": { input: 0.25, output: 2, cache_read: 0.025, cache_write: 0 },
  "gpt-5-mini": { input: 0.25, output: 2, cache_read: 0.025, cache_write: 0 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cache_read: 0.005, cache_write: 0 },
  "gpt-5": { input: 1.25, output: 10, cache_read: 0.125, cache_write: 0 },
  "gpt-4.1": { input: 2, output: 8, cache_read: 0.5, cache_write: 0 },
  "o4-mini": { input: 1.1, output: 4.4, cache_read: 0.275, cache_write: 0 },
  o3: { input: 2, output: 8, cache_read: 0.5, cache_write: 0 },
  "gemini-3-pro": { input: 2, output: 12, cache_read: 0.2, cache_write: 0 },
  "gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.125, cache_write: 0 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cache_read: 0.01, cache_write: 0 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cache_read: 0.03, cache_write: 0 },
};

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

export function totalTokens(u: AgentUsage): number {
  return u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens;
}

/** The usage of two calls (or two models of one call) together; the model of the larger. */
export function addUsage(a: AgentUsage, b: AgentUsage): AgentUsage {
  const sum: AgentUsage = {
    model: totalTokens(b) > totalTokens(a) ? b.model : a.model,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
  };
  if (a.cost_usd !== undefined && b.cost_usd !== undefined) sum.cost_usd = a.cost_usd + b.cost_usd;
  return sum;
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

/**
 * The `backend.usage` record's fields: tokens, the model, and `cost_usd` with where it came
 * from (`cost_source`: the agent, the preset's prices, the shipped table). A cost nobody
 * knows is left out (`cost_source = "unknown"`), never written as 0.
 */
export function usageFields(
  usage: AgentUsage,
  overrides: PriceOverrides = {},
): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {
    model: usage.model,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_tokens: usage.cache_read_tokens,
    cache_write_tokens: usage.cache_write_tokens,
    total_tokens: totalTokens(usage),
  };
  if (usage.cost_usd !== undefined) {
    fields.cost_usd = round(usage.cost_usd);
    fields.cost_source = "agent";
    return fields;
  }
  const priced = priceOf(usage.model, overrides);
  if (priced === undefined) {
    fields.cost_source = "unknown";
    return fields;
  }
  const p = priced.price;
  fields.cost_usd = round(
    (usage.input_tokens * p.input +
      usage.output_tokens * p.output +
      usage.cache_read_tokens * p.cache_read +
      usage.cache_write_tokens * p.cache_write) /
      1e6,
  );
  fields.cost_source = priced.source;
  if (priced.source === "price_table") fields.price_table = PRICE_TABLE_DATE;
  return fields;
}

/** A usage object a `command` backend wrote to `AUTOLOOP_USAGE_FILE` (the public autoloop's convention). */
export function usageFromFile(value: unknown): AgentUsage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const num = (key: string) =>
    typeof v[key] === "number" && Number.isFinite(v[key]) && (v[key] as number) >= 0
      ? (v[key] as number)
      : 0;
  const usage: AgentUsage = {
    model: typeof v.model === "string" ? v.model : "",
    input_tokens: num("input_tokens"),
    output_tokens: num("output_tokens"),
    cache_read_tokens: num("cache_read_tokens"),
    cache_write_tokens: num("cache_write_tokens"),
  };
  if (typeof v.cost_usd === "number" && Number.isFinite(v.cost_usd) && v.cost_usd >= 0)
    usage.cost_usd = v.cost_usd;
  return usage;
}
