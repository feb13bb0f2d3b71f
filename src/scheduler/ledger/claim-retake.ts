// An orphaned slot claim: a claim file whose claimer died before writing the run's ledger line,
// so before any spawn (a run is spawned only after its `scheduled` line). Such a slot is
// retaken once, by a second claim file beside the first (`<claim>.retake`, created the same
// atomic way), so that of two processes recovering it only one runs it.
import { statSync } from "node:fs";
import { join } from "node:path";
import { slotOfRunId } from "./scheduled-run-id.js";

/** When a claim without a ledger line counts as orphaned (chosen once, from the config). */
export interface RetakePolicy {
  /**
   * How old the claim file must be. A claimer writes its ledger line in the same synchronous
   * step as its claim file, so only a claimer that died (or was frozen that long) leaves one
   * older than a few milliseconds; see `retakeAfterMs`.
   */
  afterMs: number;
  /** True when the run has a heartbeat file: its launcher spawned it. */
  beating: (runId: string) => boolean;
}

/**
 * Three run heartbeat intervals (what other hosts already wait before calling a run's
 * launcher dead), or the lease when longer: a daemon frozen that long has lost its lease.
 */
export function retakeAfterMs(config: { runHeartbeatMs: number; leaseMs?: number | undefined }) {
  return Math.max(3 * config.runHeartbeatMs, config.leaseMs ?? 0);
}

/** The second claim that retakes the orphaned claim at `claimPath`. */
export function retakePath(claimPath: string): string {
  return `${claimPath}.retake`;
}

/** The run's own event log, wherever the index would put it (the UTC date of its slot). */
function runLogPath(stateDir: string, runId: string): string | undefined {
  const slot = slotOfRunId(runId);
  return slot === undefined
    ? undefined
    : join(stateDir, "runs", slot.slice(0, 10), `${runId}.jsonl`);
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** What a claim without a line in this process's ledger is. */
export type ClaimState =
  /** Its run has a ledger line or a heartbeat, or its run id cannot be read: it stands. */
  | { kind: "standing" }
  /** Too young to tell a dead claimer from one writing its line: looked at again at `at`. */
  | { kind: "young"; at: number }
  | { kind: "orphaned" };

/** Judges the claim file at `path`, naming `owner`, at `now` (epoch ms). */
export function claimState(
  stateDir: string,
  path: string,
  owner: string,
  policy: RetakePolicy,
  now: number,
): ClaimState {
  const log = owner === "" ? undefined : runLogPath(stateDir, owner);
  if (log === undefined || mtimeOf(log) !== undefined || policy.beating(owner))
    return { kind: "standing" };
  const claimedAt = mtimeOf(path);
  if (claimedAt === undefined) return { kind: "standing" };
  const at = claimedAt + policy.afterMs;
  return at <= now ? { kind: "orphaned" } : { kind: "young", at };
}
