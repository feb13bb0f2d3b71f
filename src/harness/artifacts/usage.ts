// What each run used and cost, from its `backend.usage` records (`autoloop inspect usage`).
// Pure: records in, data out. A cost nobody reported is counted apart, never as 0.
import { fieldNumber, type JournalRecord } from "../../journal/codec.js";

export interface RunUsage {
  run: string;
  /** Iterations the run finished. */
  iterations: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  total_tokens: number;
  /** The cost of the iterations whose cost is known. */
  cost_usd: number;
  /** Iterations whose cost is unknown: no usage reported, or a model without a price. */
  unpriced_iterations: number;
  models: string[];
}

const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "total_tokens",
] as const;

/** Each run's usage, in the order the runs first appear. */
export function runUsage(records: readonly JournalRecord[]): RunUsage[] {
  // `calls`: agent calls (iterations and metareviews), each with at most one usage record.
  const runs = new Map<string, RunUsage & { priced: number; calls: number }>();
  const of = (run: string) => {
    let u = runs.get(run);
    if (u === undefined) {
      u = {
        run,
        iterations: 0,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        total_tokens: 0,
        cost_usd: 0,
        unpriced_iterations: 0,
        models: [],
        priced: 0,
        calls: 0,
      };
      runs.set(run, u);
    }
    return u;
  };
  for (const r of records) {
    if (r.shape !== "system" || r.run === "") continue;
    if (r.topic === "iteration.finish") of(r.run).iterations++;
    if (r.topic === "iteration.finish" || r.topic === "review.finish") of(r.run).calls++;
    if (r.topic !== "backend.usage") continue;
    const u = of(r.run);
    for (const key of TOKEN_FIELDS) u[key] += fieldNumber(r, key) ?? 0;
    const cost = fieldNumber(r, "cost_usd");
    if (cost !== undefined) {
      u.cost_usd += cost;
      u.priced++;
    }
    const model = r.fields.model;
    if (typeof model === "string" && model !== "" && !u.models.includes(model))
      u.models.push(model);
  }
  return [...runs.values()]
    .filter((u) => u.iterations > 0 || u.total_tokens > 0 || u.priced > 0)
    .map(({ priced, calls, ...u }) => ({
      ...u,
      cost_usd: Math.round(u.cost_usd * 1e6) / 1e6,
      unpriced_iterations: Math.max(0, calls - priced),
    }));
}
