// `fire` without a daemon on a schedule with a `source`: the slot's issues taken before the run
// as the daemon takes them (one code path: scheduler/daemon/issue-step.ts), and the issues told
// of its end once it ended, from this process (failed calls stay queued in the state dir).

import pino from "pino";
import type { FiredOutcome } from "../app/fire-delivery.js";
import { issueEndOf } from "../app/issues.js";
import { endAfterDelivery, IssueFollowUps } from "../delivery/issue-followups.js";
import { recordSkip } from "../scheduler/admission/admission.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { issuesForLaunch } from "../scheduler/daemon/issue-step.js";
import { withIssues } from "../scheduler/launch/issue-spec.js";
import type { LaunchSpec } from "../scheduler/launch/spec.js";
import type { Trigger } from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import { attemptKey, slotKey } from "../scheduler/ledger/slots.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { type IssueEnd, readRunIssues } from "../tracker/run-issues.js";

interface IssueAttempt {
  schedule: Schedule;
  slot: Date;
  trigger: Trigger;
  retry?: { attempt: number; parentRunId: string };
}

/** The spec with the issues its run took; undefined when the slot is not run (said why). */
export async function specWithIssues(
  config: CronConfig,
  ledger: RunLedger,
  a: IssueAttempt,
  spec: LaunchSpec,
  say: (text: string) => void,
): Promise<LaunchSpec | undefined> {
  const source = a.schedule.source;
  if (source === undefined) return spec;
  const { runId } = spec;
  const step = await issuesForLaunch({
    stateDir: config.stateDir,
    schedule: a.schedule.name,
    source,
    runId,
    slotKey: attemptKey(slotKey(a.schedule.name, a.slot), a.retry?.attempt),
    env: process.env,
  });
  if (step.kind === "launch") return withIssues(spec, step.issues, source, config.stateDir);
  if (step.kind === "elsewhere") {
    say(`${a.schedule.name}: another process takes this slot's issues; nothing started`);
    return undefined;
  }
  const ref = { schedule: a.schedule.name, slot: a.slot, trigger: a.trigger, runId };
  recordSkip(ledger, { ...ref, cause: step.cause, detail: step.detail, ...a.retry });
  say(`${a.schedule.name} not launched: ${step.detail}`);
  return undefined;
}

async function tell(
  config: CronConfig,
  ledger: RunLedger,
  runId: string,
  end: IssueEnd | "awaiting",
): Promise<void> {
  const entry = readRunIssues(config.stateDir, runId);
  if (entry === undefined) return;
  const followUps = new IssueFollowUps({
    stateDir: config.stateDir,
    runInLedger: (id) => ledger.summary(id),
    // A follow-up retried or given up on is said on stderr, as fire's other warnings.
    logger: pino({ level: "warn" }, pino.destination(2)),
  });
  followUps.ended(runId, entry, end);
  await followUps.deliverDue();
}

/**
 * Tells the run's issues how it ended (no-op for a run that took none); a completed run that
 * delivers a pull request tells them once that was tried (`tellDelivered`).
 */
export async function tellIssues(
  config: CronConfig,
  ledger: RunLedger,
  runId: string,
  outcome: RunOutcome,
  schedule: Schedule,
): Promise<void> {
  if (outcome.status === "completed" && schedule.deliver !== undefined) return;
  await tell(config, ledger, runId, issueEndOf(outcome));
}

/** A completed run's issues told of its pull request; one still pending is the next daemon's. */
export async function tellDelivered(
  config: CronConfig,
  ledger: RunLedger,
  runId: string,
  outcome: RunOutcome,
  fired: (Pick<FiredOutcome, "delivery"> & Partial<FiredOutcome>) | undefined,
): Promise<void> {
  if (outcome.status !== "completed") return;
  if (fired === undefined || fired.delivery.kind === "skip") {
    const why = fired?.delivery.kind === "skip" ? fired.delivery.why : "its delivery failed";
    return tell(config, ledger, runId, { kind: "completed", note: `no pull request: ${why}` });
  }
  await tell(config, ledger, runId, endAfterDelivery(fired.result) ?? "awaiting");
}
