// A launch of a schedule with a `source`, before its slot is claimed: the issues its run takes.
// One daemon per slot takes them (a file beside the slot's claim, created only if absent), so
// two daemons sharing the state dir never both take issues for one slot; the run's take is on
// disk before its spawn. No issue ready skips the slot, on purpose; a tracker that cannot be
// read or marked skips it as trouble.

import { TRACKER_CLIENTS } from "../../tracker/clients.js";
import { writeRunIssues } from "../../tracker/run-issues.js";
import { takeIssues } from "../../tracker/take.js";
import type { TrackerIssue, TrackerSource } from "../../tracker/tracker.js";
import { createByLink } from "../../util/link-create.js";
import { resolveSecret } from "../../util/secrets.js";
import { sourceTokenField } from "../config/source.js";
import { claimFilePath } from "../ledger/claim-files.js";

export type IssueStep =
  | { kind: "launch"; issues: TrackerIssue[] }
  /** Another daemon over this state dir takes the issues of this slot, and runs it. */
  | { kind: "elsewhere" }
  | { kind: "skip"; cause: "no_issue" | "tracker_error"; detail: string };

export interface IssueAsk {
  stateDir: string;
  schedule: string;
  source: TrackerSource;
  runId: string;
  /** The key the run's slot is claimed under. */
  slotKey: string;
  env: NodeJS.ProcessEnv;
}

export async function issuesForLaunch(ask: IssueAsk): Promise<IssueStep> {
  const { stateDir, schedule, source, runId } = ask;
  const lock = `${claimFilePath(stateDir, ask.slotKey)}.issues`;
  if (!createByLink(lock, `${lock}.${runId}.tmp`, `${runId}\n`)) return { kind: "elsewhere" };
  const trouble = (detail: string): IssueStep => ({ kind: "skip", cause: "tracker_error", detail });
  let token: string;
  try {
    token = resolveSecret(source.token, `schedule "${schedule}": ${sourceTokenField(source)}`, {
      env: ask.env,
    });
  } catch (err) {
    return trouble((err as Error).message);
  }
  const client = await TRACKER_CLIENTS[source.kind]();
  const take = await takeIssues(client({ source, token }), source, stateDir, runId);
  const record = (issues: TrackerIssue[], why?: string) =>
    writeRunIssues(stateDir, {
      schedule,
      runId,
      source,
      issues: issues.map(({ id, ref, title, url }) => ({ id, ref, title, url })),
      takenAt: new Date().toISOString(),
      slotKey: ask.slotKey,
      ...(why !== undefined && { end: { kind: "not_started", why } }),
      commented: [],
      released: [],
      failures: 0,
    });
  if (take.kind === "none") return { kind: "skip", cause: "no_issue", detail: take.why };
  if (take.kind === "failed") {
    // What it had taken before the tracker failed is given back by the follow-ups.
    if (take.issues.length > 0) record(take.issues, `the tracker failed: ${take.error}`);
    return trouble(`the issues could not be taken: ${take.error}`);
  }
  record(take.issues);
  return { kind: "launch", issues: take.issues };
}
