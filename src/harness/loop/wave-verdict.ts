// How a wave's barrier judges its branches, under the preset's `parallel.aggregate.mode` (the
// public autoloop's `wave/finalize-wave.ts`): `wait_for_all` needs every branch to succeed;
// `first_success` joins on the first success (the rest cancelled); `timeout` cut short at its
// deadline joins if any branch succeeded, and before it judges like `wait_for_all`.

export type AggregateMode = "wait_for_all" | "first_success" | "timeout";

/** What the barrier saw: the `wave.aggregate` record's facts. */
export interface AggregateOutcome {
  mode: AggregateMode;
  /** The branch whose success joined a `first_success` wave; "" when none did. */
  satisfiedBy: string;
  /** A `timeout` wave's deadline passed while branches still ran. */
  timedOut: boolean;
}

/** The stop reasons of the branches the barrier cut short (the public ones). */
export const CANCELLED_FIRST_SUCCESS = "wave_cancelled_first_success";
export const AGGREGATE_TIMEOUT = "wave_aggregate_timeout";

export type WaveVerdict =
  | { kind: "joined" }
  | { kind: "timeout"; branches: string[] }
  | { kind: "failed"; branches: string[] };

interface EndedBranch {
  branchId: string;
  stopReason: string;
}

/** Stop reasons of a branch that did its work (the public autoloop's). */
export function branchSucceeded(stopReason: string): boolean {
  return ["max_iterations", "completion_event", "completion_promise"].includes(stopReason);
}

export function waveVerdict(
  outcome: AggregateOutcome,
  branches: readonly EndedBranch[],
): WaveVerdict {
  const anySucceeded = branches.some((b) => branchSucceeded(b.stopReason));
  if (outcome.mode === "first_success")
    return outcome.satisfiedBy !== "" ? { kind: "joined" } : noSuccess(branches);
  if (outcome.mode === "timeout" && outcome.timedOut)
    return anySucceeded ? { kind: "joined" } : noSuccess(branches);
  const timedOut = idsOf(branches, (reason) => reason === "backend_timeout");
  if (timedOut.length > 0) return { kind: "timeout", branches: timedOut };
  const failed = idsOf(branches, (reason) => !branchSucceeded(reason));
  return failed.length > 0 ? { kind: "failed", branches: failed } : { kind: "joined" };
}

/** No branch succeeded: a timeout if any branch timed out (its own or the wave's), else failed. */
function noSuccess(branches: readonly EndedBranch[]): WaveVerdict {
  const timedOut = idsOf(
    branches,
    (reason) => reason === "backend_timeout" || reason === AGGREGATE_TIMEOUT,
  );
  if (timedOut.length > 0) return { kind: "timeout", branches: timedOut };
  return { kind: "failed", branches: idsOf(branches, (reason) => !branchSucceeded(reason)) };
}

function idsOf(branches: readonly EndedBranch[], pick: (reason: string) => boolean): string[] {
  return branches.filter((b) => pick(b.stopReason)).map((b) => b.branchId);
}
