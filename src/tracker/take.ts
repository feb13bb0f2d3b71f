// Taking a schedule's next issues for a run, before it is spawned: each candidate is claimed in
// the state dir first (a file created only if absent: two slots or daemons sharing the state
// dir never take one issue), then marked on the tracker and read back, so a daemon with
// another state dir that marked it first keeps it (the earliest claim comment by the same
// tracker user wins; a stranger's look-alike comment is ignored).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createByLink } from "../util/link-create.js";
import { claimHolderFor, type Tracker, type TrackerIssue, type TrackerSource } from "./tracker.js";

export type IssueTake =
  | { kind: "taken"; issues: TrackerIssue[] }
  | { kind: "none"; why: string }
  /** The tracker failed; `issues` were claimed before it did, and are to be given back. */
  | { kind: "failed"; error: string; issues: TrackerIssue[] };

/** Candidates read beyond the run's limit: some may be claimed by slots not yet marked. */
const SPARE = 10;

/** `<state>/issue-claims/<tracker>/<issue id>`, holding the run id that took it. */
export function issueClaimPath(stateDir: string, source: TrackerSource, issueId: string): string {
  const tracker = `${source.kind}:${new URL(source.apiUrl).host}:${source.repository}`;
  return join(stateDir, "issue-claims", encodeURIComponent(tracker), encodeURIComponent(issueId));
}

/** Frees the state dir's claim on an issue: it may be taken again. */
export function dropIssueClaim(stateDir: string, source: TrackerSource, issueId: string): void {
  rmSync(issueClaimPath(stateDir, source, issueId), { force: true });
}

/** Where a schedule's issues come from, and what it is called in messages. */
export function describeSource(source: TrackerSource): string {
  const label = source.label === undefined ? "" : `label "${source.label}"`;
  const filter = source.kind === "linear" ? [`state "${source.state}"`, label] : [label];
  return `${source.kind} ${source.repository} (${filter.filter((f) => f !== "").join(", ")})`;
}

export async function takeIssues(
  tracker: Tracker,
  source: TrackerSource,
  stateDir: string,
  runId: string,
): Promise<IssueTake> {
  const taken: TrackerIssue[] = [];
  try {
    for (const issue of await tracker.ready(source.limit + SPARE)) {
      if (taken.length === source.limit) break;
      const path = issueClaimPath(stateDir, source, issue.id);
      if (!createByLink(path, `${path}.${process.pid}.tmp`, `${runId}\n`)) continue;
      taken.push(issue);
      await tracker.take(issue.id, runId);
      if (claimHolderFor(await tracker.marks(issue.id), runId) !== runId) {
        // Marked first by a daemon without this state dir: its run has it.
        taken.pop();
        rmSync(path, { force: true });
      }
    }
  } catch (err) {
    return { kind: "failed", error: (err as Error)?.message ?? String(err), issues: taken };
  }
  if (taken.length > 0) return { kind: "taken", issues: taken };
  return { kind: "none", why: `no issue ready in ${describeSource(source)}` };
}
