// `fire` without a daemon: this process is the scheduler (Kubernetes CronJobs and systemd timers
// run it), so the slot policy, the claim and, for a scheduled slot, jitter and retries apply here.
import pino from "pino";
import { deliverFiredRun } from "../app/fire-delivery.js";
import { EXIT_CODES, stopReasonClass } from "../journal/stop-reasons.js";
import { admitSlot, recordSkip } from "../scheduler/admission/admission.js";
import { scheduledLaunchSpec, slotCourse } from "../scheduler/admission/carry-out.js";
import { pauseOnFailures } from "../scheduler/admission/pause-on-failure.js";
import { type CronConfig, runEnvironment } from "../scheduler/config/config.js";
import { deliverTokenEnvNames } from "../scheduler/config/deliver.js";
import { sourceTokenEnvNames } from "../scheduler/config/source.js";
import { runningDaemon } from "../scheduler/daemon/control.js";
import { hookSecretEnvNames } from "../scheduler/hooks/delivery.js";
import { RunHeartbeats } from "../scheduler/launch/heartbeats.js";
import { launchRecorded } from "../scheduler/launch/recorded-launch.js";
import { retakePolicy } from "../scheduler/launch/retake-policy.js";
import { pullRequestProblem, withReviewTarget } from "../scheduler/launch/review-checkout.js";
import { runLiveness, runsElsewhere } from "../scheduler/launch/run-liveness.js";
import { RUN_KILL_GRACE_MS } from "../scheduler/launch/schedule-spec.js";
import type { RunSummary, Trigger } from "../scheduler/ledger/events.js";
import { RunLedger } from "../scheduler/ledger/ledger.js";
import type { RunOutcome } from "../scheduler/ledger/run-outcome.js";
import { newScheduledRunId } from "../scheduler/ledger/scheduled-run-id.js";
import { slotKey } from "../scheduler/ledger/slots.js";
import { type RetryPlan, retryDecision } from "../scheduler/retry/plan.js";
import { killSwitchOn, readPauseState } from "../scheduler/schedules/pause-state.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { validateAll } from "../scheduler/schedules/validate.js";
import type { ValidationReport } from "../scheduler/schedules/validation-report.js";
import { fireTimeOf } from "../scheduler/timing/jitter.js";
import { nextFireTime } from "../scheduler/timing/planner.js";
import { readRunIssues } from "../tracker/run-issues.js";
import { UserError } from "../util/errors.js";
import { isGroupAlive, signalGroup } from "../util/process.js";
import { specWithIssues, tellDelivered, tellIssues } from "./cron-fire-issues.js";
import { streamOutput } from "./cron-runs.js";

/** What `fire` runs: a manual run now, or one scheduled slot (`--slot`, `--kubernetes-job`). */
/** `pullRequest`: the pull request a review run checks out (`--set pr=<n>`). */
export type FireSlot = { kind: "now"; pullRequest?: number } | { kind: "scheduled"; slot: Date };

/** One attempt of the slot: the first (no `retry`) or a retry. */
interface Attempt {
  schedule: Schedule;
  slot: Date;
  trigger: Trigger;
  retry?: { attempt: number; parentRunId: string };
  pullRequest?: number;
}

type AttemptEnd =
  | { kind: "ended"; summary: RunSummary; outcome: RunOutcome }
  | { kind: "not run"; code: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const say = (text: string) => process.stderr.write(`autoloop-cron: ${text}\n`);

/** The exit code a foreground fire ends with, by the run's status. */
export function exitCodeOf(summary: Pick<RunSummary, "status" | "stopReason"> | undefined): number {
  switch (summary?.status) {
    case "completed":
      return EXIT_CODES.completed;
    case "failed":
      return summary.stopReason && stopReasonClass(summary.stopReason) === "stopped"
        ? EXIT_CODES.stopped
        : EXIT_CODES.failed;
    case "killed":
    case "interrupted":
      return EXIT_CODES.interrupted;
    default:
      return EXIT_CODES.failed;
  }
}

/** SIGTERM to a run's group, SIGKILL after the grace, and back once the group is gone. */
async function stopGroup(pid: number): Promise<void> {
  const gone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (isGroupAlive(pid) && Date.now() < deadline) await sleep(50);
    return !isGroupAlive(pid);
  };
  signalGroup(pid, "SIGTERM");
  if (await gone(RUN_KILL_GRACE_MS)) return;
  signalGroup(pid, "SIGKILL");
  await gone(5_000);
}

/**
 * The schedule's runs alive here (by their processes) and on other hosts (by their
 * heartbeats, which every launcher keeps, where pending.json holds what its last writer knew).
 */
function runningRuns(config: CronConfig, ledger: RunLedger, name: string) {
  const here = ledger.pending().flatMap((e) => {
    if (e.schedule !== name || e.pid === undefined) return [];
    const { runId, pid, startTime } = e;
    const liveness = runLiveness(config.stateDir, { runId, pid, startTime });
    return liveness.where === "here" && liveness.alive ? [{ ...e, pid }] : [];
  });
  const elsewhere = runsElsewhere(config.stateDir).filter((r) => r.schedule === name);
  return { here, elsewhere, ids: [...here.map((e) => e.runId), ...elsewhere.map((r) => r.runId)] };
}

function findSchedule(report: ValidationReport, name: string): Schedule {
  const schedule = report.schedules.find((s) => s.name === name);
  if (schedule !== undefined) return schedule;
  const problems = report.problems
    .filter((p) => p.file.length > 0)
    .map((p) => `${p.file}: ${p.field}`);
  throw new UserError(
    `unknown or invalid schedule ${JSON.stringify(name)}${problems.length ? ` (problems: ${problems.join("; ")})` : ""}; \`autoloop-cron validate\` explains`,
  );
}

/** Runs one attempt under the slot policy; a slot cannot wait here, so "queue" skips. */
async function runAttempt(
  config: CronConfig,
  report: ValidationReport,
  ledger: RunLedger,
  a: Attempt,
): Promise<AttemptEnd> {
  const name = a.schedule.name;
  const runId = newScheduledRunId(name, a.slot);
  const running = runningRuns(config, ledger, name);
  const { decision, standing } = admitSlot(a.schedule, {
    pause: readPauseState(config.stateDir),
    killSwitch: killSwitchOn(process.env),
    running: running.ids,
    runningTotal: 0,
    maxConcurrent: Number.POSITIVE_INFINITY,
    ledger,
    now: Date.now(),
  });
  const ref = { schedule: name, slot: a.slot, trigger: a.trigger };
  const course = slotCourse(decision, ref, "impossible", running.elsewhere);
  if (course.kind === "skip") {
    recordSkip(ledger, { ...course.skip, ...a.retry });
    say(`${name} not launched: ${course.skip.detail}`);
    return { kind: "not run", code: 0 };
  }
  if (course.kind === "replace") {
    // As in the daemon: the new run starts once the old one has ended.
    for (const e of running.here) {
      ledger.killed(e.runId, "replace", `replaced by a new run of ${name} (overlap = "replace")`);
      await stopGroup(e.pid);
    }
  }
  const logger = pino({ level: "warn" }, pino.destination(2));
  const planned = withReviewTarget(
    scheduledLaunchSpec(config, ledger, a.schedule, runId, a.slot, standing),
    a.schedule.deliver?.review,
    a.pullRequest,
  );
  if (a.retry !== undefined) planned.retry = a.retry;
  const spec = await specWithIssues(config, ledger, a, planned, say);
  if (spec === undefined) return { kind: "not run", code: 0 };
  const env = runEnvironment(config, process.env, [
    ...hookSecretEnvNames(report.schedules),
    ...deliverTokenEnvNames(report.schedules),
    ...sourceTokenEnvNames(report.schedules),
  ]);
  // This process is the run's launcher: it beats for it, so other hosts see it alive.
  const heartbeats = new RunHeartbeats(config.stateDir, config.runHeartbeatMs, { logger });
  const result = await launchRecorded(ledger, spec, a.trigger, { logger, env, heartbeats });
  if (result.kind === "duplicate") {
    say(`${name}: slot already claimed by ${result.runId}; nothing started`);
    return { kind: "not run", code: 0 };
  }
  say(`launched ${runId} (pid ${result.handle.pid ?? "?"})`);
  const stop = () => result.handle.stop("signal to autoloop-cron fire");
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  const streaming = streamOutput(config, runId, true);
  const outcome = await result.handle.done;
  await streaming;
  await tellIssues(config, ledger, runId, outcome, a.schedule);
  process.removeListener("SIGTERM", stop);
  process.removeListener("SIGINT", stop);
  const why = outcome.basis === "fetch" ? `: ${outcome.detail}` : "";
  say(`${runId} ${outcome.status}${outcome.stopReason ? ` (${outcome.stopReason})` : ""}${why}`);
  const summary = ledger.summary(runId);
  if (summary === undefined) throw new Error(`run ${runId} has no ledger record after it ended`);
  return { kind: "ended", summary, outcome };
}

/** The retry a scheduled slot's ended run is owed (`retry`), by the daemon's own rule. */
function retryOf(schedule: Schedule, run: RunSummary): RetryPlan | undefined {
  const decision = retryDecision(schedule.retry, run, (slot) => nextFireTime(schedule, slot));
  if (decision.kind === "none") {
    if (decision.why !== undefined) say(`${run.runId} not retried: ${decision.why}`);
    return undefined;
  }
  return decision.plan;
}

/**
 * Fires `name` in this process and returns the exit code. A scheduled slot runs at most once
 * across every process sharing the state dir: one already claimed (a second Job for the same
 * time, or a daemon) starts nothing and says so.
 */
export async function fireInProcess(
  config: CronConfig,
  name: string,
  when: FireSlot,
): Promise<number> {
  const report = validateAll(config);
  const schedule = findSchedule(report, name);
  const pullRequest = when.kind === "now" ? when.pullRequest : undefined;
  const problem = pullRequestProblem(schedule, pullRequest);
  if (problem !== undefined) throw new UserError(`autoloop-cron fire: ${problem}`);
  // A slot whose claimer died before recording its run is retaken here (a Job run again).
  const ledger = RunLedger.open(config.stateDir, {
    logger: pino({ level: "warn" }, pino.destination(2)),
    retake: retakePolicy(config),
  });
  const slot = when.kind === "scheduled" ? when.slot : new Date();
  const trigger: Trigger = when.kind === "scheduled" ? "cron" : "manual";
  if (when.kind === "scheduled") {
    const owner = ledger.claimant(slotKey(name, slot));
    if (owner !== undefined) {
      say(
        `${name}: the slot of ${slot.toISOString()} is already claimed by ${owner || "a claim file naming no readable run id"} (a second Job for one scheduled time, or a daemon sharing the state dir); nothing started`,
      );
      return 0;
    }
    // Jitter as the daemon's: the same offset for this schedule and slot, whoever computes it.
    const at = fireTimeOf(schedule, slot).getTime();
    if (at > Date.now()) say(`${name}: waiting ${Math.ceil((at - Date.now()) / 1000)} s (jitter)`);
    await sleep(at - Date.now());
  }
  let attempt: Attempt = {
    schedule,
    slot,
    trigger,
    ...(pullRequest !== undefined && { pullRequest }),
  };
  for (;;) {
    const end = await runAttempt(config, report, ledger, attempt);
    if (end.kind === "not run") return end.code;
    const run = end.summary;
    const retry = when.kind === "scheduled" ? retryOf(schedule, run) : undefined;
    if (retry === undefined) {
      await deliverHere(config, ledger, schedule, run.runId, end.outcome);
      return afterSlot(config, ledger, schedule, run);
    }
    say(`${name}: attempt ${retry.attempt} at ${new Date(retry.at).toISOString()} (retry)`);
    await sleep(retry.at - Date.now());
    attempt = { ...attempt, retry: { attempt: retry.attempt, parentRunId: retry.parentRunId } };
  }
}

/**
 * The slot's last run delivered as the daemon would (`deliver`); a daemon running on the state
 * dir owns its queue file, which a second writer would set wrong about the branch it pushed.
 */
async function deliverHere(
  config: CronConfig,
  ledger: RunLedger,
  schedule: Schedule,
  runId: string,
  outcome: RunOutcome,
): Promise<void> {
  if (schedule.deliver === undefined) return;
  if (runningDaemon(config.stateDir)) {
    const why = "the daemon running on this state dir owns the deliveries";
    say(`${runId}: no pull request: ${why}; fire without --slot runs through it and delivers`);
    await tellDelivered(config, ledger, runId, outcome, { delivery: { kind: "skip", why } });
    return;
  }
  const logger = pino({ level: "warn" }, pino.destination(2));
  const taken = readRunIssues(config.stateDir, runId);
  const fired = await deliverFiredRun({
    config,
    ledger,
    schedule,
    runId,
    outcome,
    logger,
    say,
    taken,
  });
  await tellDelivered(config, ledger, runId, outcome, fired);
}

/** The slot is over: a failing schedule is paused here too, as the daemon would. */
function afterSlot(
  config: CronConfig,
  ledger: RunLedger,
  schedule: Schedule,
  run: RunSummary,
): number {
  const paused =
    run.status === "completed" ? undefined : pauseOnFailures(config.stateDir, ledger, schedule);
  if (paused !== undefined)
    say(
      `${schedule.name} paused after ${paused.failures} failed runs in a row (pause_after_failures); \`autoloop-cron resume ${schedule.name}\` resumes it`,
    );
  return exitCodeOf(run);
}
