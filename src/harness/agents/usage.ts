// What one agent call used: tokens as the API counted them, normalised to the public
// autoloop's `backend.usage` fields (prices.ts turns them into a cost).

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
