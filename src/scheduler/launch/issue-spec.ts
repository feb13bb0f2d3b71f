// What a run gets of the issues it took: their refs in AUTOLOOP_CRON_ISSUES, a copy of them
// in its hand-over folder (AUTOLOOP_CRON_ISSUES_FILE), for a preset or a chain the issues in
// its objective as delimited data (tracker/issue-text.ts), and for a preset that asks for it
// their checkboxes as its tasks (issue-tasks.ts).
import { randomBytes } from "node:crypto";
import { issueObjective } from "../../tracker/issue-text.js";
import { recordTaskSync } from "../../tracker/run-issues.js";
import { describeSource } from "../../tracker/take.js";
import type { TrackerIssue, TrackerSource } from "../../tracker/tracker.js";
import { processRedactor, redactStrings } from "../../util/secrets.js";
import { handOver } from "../history/handover.js";
import { presetSyncsTasks, seedIssueTasks } from "./issue-tasks.js";
import type { LaunchSpec } from "./spec.js";

export function withIssues(
  spec: LaunchSpec,
  taken: readonly TrackerIssue[],
  source: TrackerSource,
  /** The daemon's state dir, whose record of the run's issues keeps the synced tasks. */
  stateDir: string,
): LaunchSpec {
  // A secret pasted into an issue reaches neither the run nor the ledger (which keeps argv).
  const issues = redactStrings(taken, processRedactor);
  const copy = handOver(spec.cwd, spec.runId, {
    "issues.json": `${JSON.stringify(issues, null, 2)}\n`,
  });
  const env: Record<string, string> = {
    ...spec.env,
    AUTOLOOP_CRON_ISSUES: issues.map((i) => i.ref).join(" "),
  };
  if (copy?.["issues.json"] !== undefined) env.AUTOLOOP_CRON_ISSUES_FILE = copy["issues.json"];
  if (spec.kind === "command") return { ...spec, env };
  const sync =
    spec.kind === "preset" && presetSyncsTasks(spec)
      ? seedIssueTasks(spec, taken, source)
      : undefined;
  if (sync !== undefined) {
    recordTaskSync(stateDir, spec.runId, sync);
    // The harness finds it there whatever its preset's `core` says.
    env.AUTOLOOP_TASKS_FILE = sync.file;
  }
  // Unguessable by the issue's author: their text cannot end the block early.
  const nonce = randomBytes(6).toString("hex");
  const objective = issueObjective(spec.objective, issues, describeSource(source), nonce);
  return { ...spec, env, objective };
}
