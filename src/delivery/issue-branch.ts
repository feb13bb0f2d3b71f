// The branch and pull request a run of a schedule with `source` delivers to: its issue's own
// (`autoloop/<schedule>/issue-42`), so each issue has one pull request that closes it, and a
// later run of the same issue updates that one. Pure: the take is the daemon's record of what
// the run took (tracker/run-issues.ts), never a file the run wrote.
import type { RunIssues } from "../tracker/run-issues.js";
import { closingRef, type TrackerKind } from "../tracker/tracker.js";

/** Where a run that took issues delivers, or why it delivers nothing. */
export type IssueBranch =
  | {
      kind: "branch";
      /** `issue-42`: what names the branch and the queue's lane. */
      key: string;
      /** The words closing each issue it took (`Closes octo/app#42`). */
      closes: string[];
    }
  | { kind: "none"; why: string };

// What a branch's last part may hold: a valid git ref component, safe in a path and a URL.
const KEY = /^[a-z0-9][a-z0-9-]*$/;
// A ref's component is a file name on the remote: well under the usual 255 bytes.
const MAX_KEY = 200;

/** One issue's part of the branch: `issue-42` (GitHub, GitLab), `eng-12` (Linear). */
export function issueKeyPart(kind: TrackerKind, issue: { id: string; ref: string }): string {
  return kind === "linear" ? issue.ref.toLowerCase() : `issue-${issue.id}`;
}

/** The branch of a schedule's pull request: its own, or with `key` that issue's. */
export function deliveryBranch(schedule: string, key?: string): string {
  return key === undefined ? `autoloop/${schedule}` : `autoloop/${schedule}/${key}`;
}

/** The issues' key (several issues taken together share one branch), or why there is none. */
export function issueBranchOf(taken: RunIssues | undefined): IssueBranch {
  if (taken === undefined || taken.issues.length === 0)
    return {
      kind: "none",
      why: "the schedule takes issues (source) but the daemon has no record of the run's: its pull request would have no issue's branch",
    };
  const key = taken.issues.map((i) => issueKeyPart(taken.source.kind, i)).join("-");
  if (!KEY.test(key) || key.length > MAX_KEY)
    return {
      kind: "none",
      why: `issue ${taken.issues.map((i) => i.ref).join(" ")} of ${taken.source.kind} ${taken.source.repository} cannot name a branch (${JSON.stringify(key.slice(0, MAX_KEY))}: lowercase letters, digits and "-" only)`,
    };
  return { kind: "branch", key, closes: taken.issues.map((i) => closingRef(taken.source, i)) };
}

// What a remote says when a branch cannot be made beside another that is its folder or file.
const REF_CONFLICT = /cannot lock ref|exists; cannot create|directory file conflict/i;

/**
 * A push the remote refused because `autoloop/<schedule>` and `autoloop/<schedule>/<key>`
 * cannot both exist (git keeps a branch as a file): what to delete; undefined for other failures.
 */
export function branchConflict(detail: string, branch: string): string | undefined {
  if (!REF_CONFLICT.test(detail)) return undefined;
  const schedule = branch.split("/")[1] ?? branch;
  return `the remote cannot hold branch ${branch} beside another: autoloop/${schedule} (the schedule's pull request branch from before it took issues) and autoloop/${schedule}/… (one per issue, with source) exclude each other: delete the other one on the remote (after merging or closing its pull request), and the next run delivers (${detail})`;
}
