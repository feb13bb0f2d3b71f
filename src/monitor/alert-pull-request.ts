// The pull request an alert names: the run's own (its ledger's `delivered` event), else the one
// its schedule's latest delivering run went to, since a schedule's branch has one at a time.
import type { RunLedger } from "../scheduler/ledger/ledger.js";

/** How far back a schedule's runs are read for one that delivered: a page must stay cheap. */
const RUNS_LOOKED_AT = 20;

type LedgerReads = Pick<RunLedger, "summary" | "replay" | "runIdsNewestFirst">;

/**
 * The delivered URL of a run. The cached summary first; then the run's file, which another
 * process's daemon may have added the `delivered` line to since this ledger cached it.
 */
function deliveredUrl(ledger: LedgerReads, runId: string): string | undefined {
  return ledger.summary(runId)?.pullRequest ?? ledger.replay(runId)?.summary.pullRequest;
}

export function alertPullRequest(
  ledger: LedgerReads,
  schedule: string | undefined,
  runId: string | undefined,
): string | undefined {
  const own = runId === undefined ? undefined : deliveredUrl(ledger, runId);
  if (own !== undefined || schedule === undefined) return own;
  let looked = 0;
  for (const id of ledger.runIdsNewestFirst(schedule)) {
    if (looked++ >= RUNS_LOOKED_AT) break;
    const url = deliveredUrl(ledger, id);
    if (url !== undefined) return url;
  }
  return undefined;
}
