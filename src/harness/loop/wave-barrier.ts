// A wave's barrier: its branches run at once and are waited for under the preset's
// `parallel.aggregate.mode`. `first_success` cancels the branches still running once one
// succeeds, `timeout` those still running at its deadline; each cancelled branch's run is
// stopped like any run and ends with the public stop reason (wave-verdict.ts).
import type { Run } from "./run-state.js";
import { type BranchResult, type BranchSpec, type RunBranch, runBranch } from "./wave-branch.js";
import {
  AGGREGATE_TIMEOUT,
  type AggregateOutcome,
  branchSucceeded,
  CANCELLED_FIRST_SUCCESS,
} from "./wave-verdict.js";

/** Every branch's result, in spec order; `ended` sees each as it ends. */
export async function awaitBranches(
  run: Run,
  specs: readonly BranchSpec[],
  start: RunBranch,
  ended: (result: BranchResult) => void,
): Promise<{ results: BranchResult[]; outcome: AggregateOutcome }> {
  const { mode, timeout_ms: timeoutMs } = run.preset.config.parallel.aggregate;
  const cancel = new AbortController();
  const outcome: AggregateOutcome = { mode, satisfiedBy: "", timedOut: false };
  const deadline =
    mode === "timeout" && timeoutMs > 0
      ? setTimeout(() => {
          outcome.timedOut = true;
          cancel.abort(AGGREGATE_TIMEOUT);
        }, timeoutMs)
      : undefined;
  try {
    const results = await Promise.all(
      specs.map(async (spec) => {
        const result = await runBranch(run, spec, start, cancel.signal, specs.length);
        ended(result);
        if (
          mode === "first_success" &&
          !cancel.signal.aborted &&
          branchSucceeded(result.stopReason)
        ) {
          outcome.satisfiedBy = spec.branchId;
          cancel.abort(CANCELLED_FIRST_SUCCESS);
        }
        return result;
      }),
    );
    return { results, outcome };
  } finally {
    clearTimeout(deadline);
  }
}
