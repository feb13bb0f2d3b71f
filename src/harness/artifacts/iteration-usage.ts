// One run's usage per agent call (`autoloop inspect usage --run ID`), in the public autoloop's
// shape and key order: a row per `backend.usage` record, then the run's totals. Pure.
import { fieldNumber, fieldText, type JournalRecord } from "../../journal/codec.js";
import { runUsage } from "./usage.js";

/** What one agent call, or all of them, used. */
interface UsageFigures {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  costUsd: number;
}

export interface UsageRow extends UsageFigures {
  iteration: string;
  contextPercent?: number;
  /** Our extensions, after the public keys. `costUsd` is 0 when `costSource` is `unknown`. */
  model?: string;
  costSource: string;
}

export interface UsageTotals extends UsageFigures {
  /** Usage records counted (the public meaning: rows, not iterations run). */
  iterations: number;
  /** Our extension: agent calls whose cost is unknown (no usage reported, or no price). */
  unpricedIterations: number;
}

export interface IterationUsage {
  rows: UsageRow[];
  totals: UsageTotals;
}

/** `run`'s usage rows and totals; the records may hold other runs'. */
export function iterationUsage(records: readonly JournalRecord[], run: string): IterationUsage {
  const mine = records.filter((r) => r.run === run);
  const rows = mine.filter((r) => r.shape === "system" && r.topic === "backend.usage").map(toRow);
  const totals: UsageTotals = {
    iterations: rows.length,
    inputTokens: sum(rows, (r) => r.inputTokens),
    outputTokens: sum(rows, (r) => r.outputTokens),
    cacheReadTokens: sum(rows, (r) => r.cacheReadTokens),
    cacheWriteTokens: sum(rows, (r) => r.cacheWriteTokens),
    totalTokens: sum(rows, (r) => r.totalTokens),
    costUsd: Math.round(sum(rows, (r) => r.costUsd) * 1e6) / 1e6,
    unpricedIterations: runUsage(mine)[0]?.unpriced_iterations ?? 0,
  };
  return { rows, totals };
}

function toRow(r: JournalRecord): UsageRow {
  const n = (key: string) => fieldNumber(r, key) ?? 0;
  const cost = fieldNumber(r, "cost_usd");
  const context = fieldNumber(r, "context_percent");
  const model = fieldText(r, "model");
  // Keys in the public order, ours after them.
  return {
    iteration: r.iteration ?? "",
    inputTokens: n("input_tokens"),
    outputTokens: n("output_tokens"),
    cacheReadTokens: n("cache_read_tokens"),
    cacheWriteTokens: n("cache_write_tokens"),
    totalTokens: n("total_tokens"),
    costUsd: cost ?? 0,
    ...(context === undefined ? {} : { contextPercent: context }),
    ...(model === "" ? {} : { model }),
    costSource: cost === undefined ? "unknown" : fieldText(r, "cost_source") || "agent",
  };
}

const sum = (rows: UsageRow[], of: (r: UsageRow) => number) =>
  rows.reduce((acc, r) => acc + of(r), 0);
