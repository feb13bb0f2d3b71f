// Where the spend the ledger books for a run comes from: what its harness reported (`end.json`
// in the run's private folder, out of the project), else its journal, which the run can
// rewrite (a claim: a budget counts it as at least the run's ceiling; docs/formats.md).
import { type EndRecord, readEndRecord } from "../../harness/control/end-record.js";
import {
  journalsItsEnd,
  plausibleTokens,
  plausibleUsd,
  type RunKind,
  type RunSpend,
  type SpendBasis,
} from "../ledger/run-outcome.js";
import { recordedExit } from "./outcome.js";
import type { RunEndScan } from "./outcome-journal.js";

export interface BookedSpend {
  spend?: RunSpend;
  spendBasis?: SpendBasis;
}

/**
 * The spend an end record states: `{}` when its harness knew none (no agent call, no usage
 * reported: unknown, never 0); undefined when a figure is not believable (no report at all).
 */
function reported(end: EndRecord): { spend?: RunSpend } | undefined {
  if (end.costUsd === undefined && end.totalTokens === undefined) return {};
  const costUsd = plausibleUsd(end.costUsd);
  const tokens = plausibleTokens(end.totalTokens);
  if (costUsd === undefined || tokens === undefined) return undefined;
  return { spend: { costUsd, tokens, unpricedIterations: end.unpricedIterations ?? 0 } };
}

/**
 * The harness's figures, raised where the journal states more: a run lowers what is booked
 * only by forging both files (the journal alone it can rewrite, `end.json` alone it can plant).
 */
function atLeast(harness: RunSpend, journal: RunSpend | undefined): RunSpend {
  if (journal === undefined) return harness;
  return {
    costUsd: Math.max(harness.costUsd, journal.costUsd),
    tokens: Math.max(harness.tokens, journal.tokens),
    unpricedIterations: Math.max(harness.unpricedIterations, journal.unpricedIterations),
  };
}

/**
 * The journal's per-model split (for `/metrics`) when it adds up to what the harness reported;
 * otherwise the journal was rewritten and the split is not shown.
 */
function withModels(spend: RunSpend, journal: RunSpend | undefined): RunSpend {
  const byModel = journal?.byModel;
  if (byModel === undefined) return spend;
  const models = Object.values(byModel);
  const cost = models.reduce((sum, m) => sum + m.costUsd, 0);
  const tokens = models.reduce((sum, m) => sum + m.tokens, 0);
  const agrees = Math.abs(cost - spend.costUsd) < 1e-5 && tokens === spend.tokens;
  return agrees ? { ...spend, byModel } : spend;
}

/**
 * What a run of `kind` spent and where that came from: the harness's end record of `runId`
 * (found from the journal's path and `env`, the environment the run was given), else the
 * run's journal as `scan` read it. A command journals nothing: its spend is unknown.
 *
 * The end record is read only when the run's wrapper recorded that the harness exited
 * (`recorded`, its exit code): a harness killed by a signal wrote none, so an `end.json`
 * then is one its agent planted before killing it.
 */
export function bookedSpend(
  kind: RunKind,
  runId: string,
  journalPath: string,
  scan: RunEndScan | undefined,
  env: NodeJS.ProcessEnv,
  recorded: number | undefined,
): BookedSpend {
  if (!journalsItsEnd(kind)) return {};
  const exited = recorded !== undefined && !("signal" in recordedExit(kind, recorded));
  const end = exited ? readEndRecord(runId, journalPath, env) : undefined;
  const harness = end === undefined ? undefined : reported(end);
  const journal = scan?.spend();
  if (harness?.spend !== undefined)
    return { spend: withModels(atLeast(harness.spend, journal), journal), spendBasis: "harness" };
  if (harness !== undefined) return { spendBasis: "harness" };
  return journal === undefined ? {} : { spend: journal, spendBasis: "journal" };
}
