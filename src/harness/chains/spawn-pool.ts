// What a tree of spawned chains may still spend: the root run's own limits (iterations, cost,
// tokens, runtime: a scheduled run's are its schedule's), less what every run of the tree
// spent. A spawned run is capped to what is left, so the tree never outspends its root.
import type { PresetConfig } from "../preset/schema.js";

export interface SpawnPool {
  iterations: number;
  /** Undefined: no limit. */
  usd: number | undefined;
  tokens: number | undefined;
  /** Epoch ms by which the tree must be done; undefined: no limit. */
  deadline: number | undefined;
}

export interface RunSpent {
  iterations: number;
  costUsd: number;
  totalTokens: number;
}

type EventLoop = PresetConfig["event_loop"];

/** The pool of a root run with these limits, started at `now`. */
export function poolOf(ev: EventLoop, maxIterations: number | undefined, now: number): SpawnPool {
  return {
    iterations: maxIterations ?? ev.max_iterations,
    usd: ev.max_cost_usd > 0 ? ev.max_cost_usd : undefined,
    tokens: ev.max_tokens > 0 ? ev.max_tokens : undefined,
    deadline: ev.max_runtime === undefined ? undefined : now + ev.max_runtime,
  };
}

export function charge(pool: SpawnPool, spent: RunSpent): void {
  pool.iterations -= spent.iterations;
  if (pool.usd !== undefined) pool.usd -= spent.costUsd;
  if (pool.tokens !== undefined) pool.tokens -= spent.totalTokens;
}

/** What is spent, when something is: no spawn then. */
export function poolSpent(pool: SpawnPool, now: number): string | undefined {
  if (pool.iterations <= 0) return "the root run's max_iterations are used up by the tree";
  if (pool.usd !== undefined && pool.usd <= 0) return "the root run's max_cost_usd is spent";
  if (pool.tokens !== undefined && pool.tokens <= 0) return "the root run's max_tokens are spent";
  if (pool.deadline !== undefined && now >= pool.deadline)
    return "the root run's max_runtime is over";
  return undefined;
}

/** A spawned run's limits, lowered to what the pool has left; its max iterations returned. */
export function capToPool(
  ev: EventLoop,
  maxIterations: number | undefined,
  pool: SpawnPool,
  now: number,
): number {
  const lower = (own: number, left: number | undefined) =>
    left === undefined ? own : own > 0 ? Math.min(own, left) : left;
  ev.max_cost_usd = lower(ev.max_cost_usd, pool.usd);
  ev.max_tokens = lower(ev.max_tokens, pool.tokens);
  if (pool.deadline !== undefined)
    ev.max_runtime = Math.min(ev.max_runtime ?? Infinity, Math.max(1, pool.deadline - now));
  return Math.max(1, Math.min(maxIterations ?? ev.max_iterations, pool.iterations));
}
