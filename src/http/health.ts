// Decides whether the daemon is healthy from facts gathered elsewhere; pure, time is an argument.
import { formatDuration } from "../util/duration.js";

export interface CheckResult {
  ok: boolean;
  /** What was seen, for people reading /healthz: "last tick 4s ago", "EROFS: read-only...". */
  detail: string;
}

export interface HealthInput {
  now: Date | number;
  /** When the scheduler last woke up; undefined before its first tick. */
  lastTickAt: Date | number | undefined;
  /** The scheduler's longest sleep between ticks (30 s: it never waits longer). */
  tickIntervalMs: number;
  /** How many missed ticks make it stale; default 3 (30 s → 90 s). */
  staleAfterTicks?: number;
  /** When the daemon started, so the moments before the first tick count as healthy. */
  startedAt?: Date | number;
  stateDirWritable: { ok: boolean; error?: string };
  /** More checks by name, e.g. `{ outbox: { ok: false, detail: "3 dead letters" } }`. */
  extraChecks?: Record<string, CheckResult>;
}

export interface HealthReport {
  ok: boolean;
  /** One line per failed check, `name: detail`; empty when healthy. */
  reasons: string[];
  checks: Record<string, CheckResult>;
}

const ms = (t: Date | number): number => (typeof t === "number" ? t : t.getTime());

export function checkScheduler(input: HealthInput): CheckResult {
  const now = ms(input.now);
  const limit = input.tickIntervalMs * (input.staleAfterTicks ?? 3);
  const limitText = `${formatDuration(limit)} (${input.staleAfterTicks ?? 3} × ${formatDuration(input.tickIntervalMs)})`;
  if (input.lastTickAt === undefined) {
    const sinceStart = input.startedAt === undefined ? undefined : now - ms(input.startedAt);
    if (sinceStart !== undefined && sinceStart <= limit) {
      return {
        ok: true,
        detail: `starting: no tick yet, ${formatDuration(sinceStart)} after start`,
      };
    }
    return { ok: false, detail: `the scheduler has not ticked; expected within ${limitText}` };
  }
  const age = now - ms(input.lastTickAt);
  // A tick "in the future" means the wall clock moved back; the scheduler is alive, not stuck.
  if (age < 0) return { ok: true, detail: "last tick is in the future (clock moved back?)" };
  if (age > limit) {
    return {
      ok: false,
      detail: `last tick ${formatDuration(age)} ago, more than ${limitText}; the scheduler loop is stuck or the process is suspended`,
    };
  }
  return { ok: true, detail: `last tick ${formatDuration(age)} ago` };
}

export function evaluateHealth(input: HealthInput): HealthReport {
  const checks: Record<string, CheckResult> = {
    scheduler: checkScheduler(input),
    state_dir: input.stateDirWritable.ok
      ? { ok: true, detail: "writable" }
      : { ok: false, detail: `not writable: ${input.stateDirWritable.error ?? "unknown error"}` },
    ...input.extraChecks,
  };
  const reasons = Object.entries(checks)
    .filter(([, c]) => !c.ok)
    .map(([name, c]) => `${name}: ${c.detail}`);
  return { ok: reasons.length === 0, reasons, checks };
}
