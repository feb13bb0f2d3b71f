// How a work dir's runs stand (`autoloop loops health`): active, quiet long enough to watch,
// stuck, or ended badly or well in the last day. Pure: the time and the pid check are given.
import type { RegistryEntry } from "../../journal/registry-view.js";
import { isLive, type ProcessCheck, text } from "./runs.js";

const MINUTE = 60_000;
const RECENT_MS = 24 * 60 * MINUTE;

/** How long a live run may go without an update before it is watched, then called stuck. */
export interface SupervisionPolicy {
  label: string;
  warningAfterMs: number;
  stuckAfterMs: number;
}

const policy = (label: string, warn: number, stuck: number): SupervisionPolicy => ({
  label,
  warningAfterMs: warn * MINUTE,
  stuckAfterMs: stuck * MINUTE,
});

// The public autoloop's table, so both harnesses call the same run stuck at the same time.
const POLICIES: Record<string, SupervisionPolicy> = {
  autospec: policy("autospec", 10, 20),
  autocode: policy("autocode", 5, 12),
  autosimplify: policy("autosimplify", 2, 6),
  autoqa: policy("autoqa", 6, 15),
  autofix: policy("autofix", 4, 10),
  autopr: policy("autopr", 3, 8),
};
const DEFAULT_POLICY = policy("default", 5, 10);

export function policyForPreset(preset: string): SupervisionPolicy {
  return POLICIES[preset] ?? DEFAULT_POLICY;
}

export type HealthBucket = "active" | "watching" | "stuck" | "recent_failed" | "recent_completed";

export const HEALTH_BUCKETS: readonly HealthBucket[] = [
  "active",
  "watching",
  "stuck",
  "recent_failed",
  "recent_completed",
];

export type Health = Record<HealthBucket, RegistryEntry[]>;

const ageMs = (r: RegistryEntry, now: number): number | undefined => {
  const at = Date.parse(text(r.updated_at));
  return Number.isNaN(at) ? undefined : now - at;
};

/**
 * The bucket of one run, or undefined (ended over a day ago, or stopped). A live run whose
 * recorded process is gone ended without saying so: it is judged as stopped.
 */
export function healthOf(
  r: RegistryEntry,
  now: number,
  running: ProcessCheck,
): HealthBucket | undefined {
  const age = ageMs(r, now);
  if (isLive(r) && running(r)) {
    if (age === undefined) return "active";
    const p = policyForPreset(text(r.preset));
    if (age > p.stuckAfterMs) return "stuck";
    return age > p.warningAfterMs ? "watching" : "active";
  }
  if (age === undefined || age > RECENT_MS) return undefined;
  if (r.status === "failed" || r.status === "timed_out") return "recent_failed";
  return r.status === "completed" ? "recent_completed" : undefined;
}

export function classifyRuns(
  runs: readonly RegistryEntry[],
  now: number,
  running: ProcessCheck,
): Health {
  const health: Health = {
    active: [],
    watching: [],
    stuck: [],
    recent_failed: [],
    recent_completed: [],
  };
  for (const r of runs) {
    const bucket = healthOf(r, now, running);
    if (bucket !== undefined) health[bucket].push(r);
  }
  return health;
}

/** `loops health --json`: each bucket's count and run ids. */
export function healthJson(h: Health): Record<HealthBucket, { count: number; run_ids: string[] }> {
  const out = {} as Record<HealthBucket, { count: number; run_ids: string[] }>;
  for (const b of HEALTH_BUCKETS)
    out[b] = { count: h[b].length, run_ids: h[b].map((r) => r.run_id) };
  return out;
}
