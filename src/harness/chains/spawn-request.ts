// A `chain.spawn` an agent emitted, read and judged: which presets, with what objective, and
// whether the spawning preset's limits let it run. Pure: the payload is an agent's, untrusted.

/** The most an objective or justification may carry into a spawned chain. */
const MAX_TEXT = 8000;
const PRESET = /^[a-z0-9][a-z0-9._-]*$/;

export interface SpawnRequest {
  steps: string[];
  /** The spawned chain's objective; "" means the spawning run's. */
  objective: string;
  justification: string;
}

export type SpawnRefusal =
  | "bad_request"
  | "parent_not_completed"
  | "not_allowed"
  | "max_depth"
  | "max_children"
  | "budget_spent";

export type SpawnDecision =
  | { kind: "spawn"; request: SpawnRequest }
  | { kind: "refused"; reason: SpawnRefusal; detail: string; steps: string };

/** How the spawning run stands when its requests are judged. */
export interface SpawnStanding {
  /** The presets its preset's `[chain_spawn] presets` names. */
  allowed: readonly string[];
  /** The spawning run's depth: 0 for a run nobody spawned. */
  depth: number;
  maxDepth: number;
  maxChildren: number;
  /** Chains this run spawned already. */
  spawned: number;
  parentCompleted: boolean;
  /** What of the root run's budget is spent, if any is (a spawn cannot escape that budget). */
  poolSpent: string | undefined;
}

/**
 * The payload, a JSON object: `steps` (the public autoloop's: a list of preset names or one
 * comma-separated string) or `preset` (one name), `objective`, `justification`.
 */
export function parseSpawnPayload(payload: string): SpawnRequest | { invalid: string } {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return { invalid: 'not JSON; emit {"preset": "review", "objective": "..."}' };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { invalid: 'not a JSON object; emit {"preset": "review", "objective": "..."}' };
  const o = value as Record<string, unknown>;
  const raw = o.steps ?? (o.preset === undefined ? undefined : [o.preset]);
  const steps = typeof raw === "string" ? raw.split(",").map((s) => s.trim()) : raw;
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every((s) => typeof s === "string"))
    return { invalid: "no preset: give preset (a name) or steps (a list of names)" };
  for (const key of ["objective", "justification"] as const)
    if (o[key] !== undefined && (typeof o[key] !== "string" || o[key].length > MAX_TEXT))
      return { invalid: `${key} is not a string of at most ${MAX_TEXT} characters` };
  return {
    steps: steps as string[],
    objective: (o.objective as string | undefined) ?? "",
    justification: (o.justification as string | undefined) ?? "",
  };
}

/** Whether one request runs, judged in order: the first reason against it is given. */
export function decideSpawn(payload: string, at: SpawnStanding): SpawnDecision {
  const parsed = parseSpawnPayload(payload);
  if ("invalid" in parsed)
    return { kind: "refused", reason: "bad_request", detail: parsed.invalid, steps: "" };
  const steps = parsed.steps.join(",");
  const refuse = (reason: SpawnRefusal, detail: string): SpawnDecision => ({
    kind: "refused",
    reason,
    detail,
    steps,
  });
  if (!at.parentCompleted)
    return refuse("parent_not_completed", "only a run that completed starts what it asked for");
  const unknown = parsed.steps.find((s) => !PRESET.test(s) || !at.allowed.includes(s));
  if (unknown !== undefined)
    return refuse(
      "not_allowed",
      `${JSON.stringify(unknown)} is not in the preset's [chain_spawn] presets (${at.allowed.join(", ") || "none"})`,
    );
  if (at.depth + 1 > at.maxDepth)
    return refuse(
      "max_depth",
      `the spawned chain would be at depth ${at.depth + 1}; max_depth is ${at.maxDepth}`,
    );
  if (at.spawned >= at.maxChildren)
    return refuse(
      "max_children",
      `this run spawned ${at.spawned} chain(s); max_children is ${at.maxChildren}`,
    );
  if (at.poolSpent !== undefined) return refuse("budget_spent", at.poolSpent);
  return { kind: "spawn", request: parsed };
}
