// `autoloop-cron fire <schedule> [--foreground]`: a run now, through the daemon when one
// is running (so overlap, concurrency and the ledger stay consistent), else in-process.
import pino from "pino";
import { EXIT_CODES, stopReasonClass } from "../journal/stop-reasons.js";
import { stopRun } from "../operator/run-actions.js";
import { fireThroughDaemon } from "../operator/schedule-actions.js";
import { admitSlot, recordSkip } from "../scheduler/admission/admission.js";
import { scheduledLaunchSpec, slotCourse } from "../scheduler/admission/carry-out.js";
import { pauseOnFailures } from "../scheduler/admission/pause-on-failure.js";
import { budgetStanding } from "../scheduler/budget/standing.js";
import { type CronConfig, runEnvironment } from "../scheduler/config/config.js";
import { deliverTokenEnvNames } from "../scheduler/config/deliver.js";
import { runningDaemon } from "../scheduler/daemon/control.js";
import { launchRecorded } from "../scheduler/daemon/recorded-launch.js";
import { hookSecretEnvNames } from "../scheduler/hooks/delivery.js";
import { isRunProcess } from "../scheduler/launch/identity.js";
import { RUN_KILL_GRACE_MS } from "../scheduler/launch/schedule-spec.js";
import type { RunSummary } from "../scheduler/ledger/events.js";
import { newScheduledRunId } from "../scheduler/ledger/scheduled-run-id.js";
import { killSwitchOn, readPauseState } from "../scheduler/schedules/pause-state.js";
import { validateAll } from "../scheduler/schedules/validate.js";
import { UserError } from "../util/errors.js";
import { isGroupAlive, signalGroup } from "../util/process.js";
import { flag } from "./common.js";
import { configOf, parseCron } from "./cron-common.js";
import { openLedger, streamOutput } from "./cron-runs.js";

const HELP = `Usage: autoloop-cron fire <schedule> [--foreground] [--config FILE]

Launches a run of the schedule now (trigger "manual"), under the schedule's policies
(enabled, pause, \`after\`, overlap; without a daemon a slot cannot wait, so "queue"
skips it).
With a daemon running, the daemon launches it and this prints the run id.
--foreground waits for the run, streams its output and exits with its outcome (Ctrl-C
stops the run, through the daemon when one runs it):
0 completed, 1 failed or timed out, 3 stopped (max_iterations, stalled, ...),
130 killed or interrupted. Without a daemon, fire always runs in the foreground
(this is what the Kubernetes CronJobs and systemd timers from \`export\` run).
`;

/** How long a foreground fire's Ctrl-C keeps asking the daemon to stop a run not started yet. */
const STOP_RETRY_MS = 15_000;

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
    while (isGroupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return !isGroupAlive(pid);
  };
  signalGroup(pid, "SIGTERM");
  if (await gone(RUN_KILL_GRACE_MS)) return;
  signalGroup(pid, "SIGKILL");
  await gone(5_000);
}

async function fireInProcess(config: CronConfig, name: string): Promise<number> {
  const report = validateAll(config);
  const schedule = report.schedules.find((s) => s.name === name);
  if (schedule === undefined) {
    const problems = report.problems
      .filter((p) => p.file.length > 0)
      .map((p) => `${p.file}: ${p.field}`);
    throw new UserError(
      `unknown or invalid schedule ${JSON.stringify(name)}${problems.length ? ` (problems: ${problems.join("; ")})` : ""}; \`autoloop-cron validate\` explains`,
    );
  }
  const ledger = openLedger(config);
  const slot = new Date();
  const runId = newScheduledRunId(name, slot);
  // Without a daemon this process is the scheduler (Kubernetes CronJobs and systemd timers
  // run it): the same slot policy applies. A slot cannot wait here, so "queue" skips.
  const pause = readPauseState(config.stateDir);
  const running = ledger
    .pending()
    .filter(
      (e) =>
        e.schedule === name && e.pid !== undefined && isRunProcess(e.pid, e.runId, e.startTime),
    );
  const decision = admitSlot(schedule, {
    pause,
    killSwitch: killSwitchOn(process.env),
    running: running.map((e) => e.runId),
    runningTotal: 0,
    maxConcurrent: Number.POSITIVE_INFINITY,
    ledger,
    now: slot.getTime(),
  });
  const course = slotCourse(decision, { schedule: name, slot, trigger: "manual" }, "impossible");
  if (course.kind === "skip") {
    recordSkip(ledger, course.skip);
    process.stderr.write(`autoloop-cron: ${name} not launched: ${course.skip.detail}\n`);
    return 0;
  }
  if (course.kind === "replace") {
    // As in the daemon: the new run starts once the old one has ended.
    for (const e of running) {
      ledger.killed(e.runId, "replace", `replaced by a new run of ${name} (overlap = "replace")`);
      await stopGroup(e.pid!);
    }
  }
  const logger = pino({ level: "warn" }, pino.destination(2));
  const standing = budgetStanding(schedule, ledger, Date.now());
  const spec = scheduledLaunchSpec(config, ledger, schedule, runId, slot, standing);
  const env = runEnvironment(config, process.env, [
    ...hookSecretEnvNames(report.schedules),
    ...deliverTokenEnvNames(report.schedules),
  ]);
  const result = await launchRecorded(ledger, spec, "manual", { logger, env });
  if (result.kind === "duplicate")
    throw new UserError(`slot already launched as ${result.runId}`, 1);
  process.stderr.write(`autoloop-cron: launched ${runId} (pid ${result.handle.pid ?? "?"})\n`);
  const stop = () => result.handle.stop("signal to autoloop-cron fire");
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  const streaming = streamOutput(config, runId, true);
  const outcome = await result.handle.done;
  await streaming;
  process.stderr.write(
    `autoloop-cron: ${runId} ${outcome.status}${outcome.stopReason ? ` (${outcome.stopReason})` : ""}\n`,
  );
  // Without a daemon this process is the scheduler: it pauses a failing schedule too.
  const paused =
    outcome.status === "completed" ? undefined : pauseOnFailures(config.stateDir, ledger, schedule);
  if (paused !== undefined)
    process.stderr.write(
      `autoloop-cron: ${name} paused after ${paused.failures} failed runs in a row (pause_after_failures); \`autoloop-cron resume ${name}\` resumes it\n`,
    );
  return exitCodeOf({ status: outcome.status, stopReason: outcome.stopReason });
}

export async function fireCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "fire",
    help: HELP,
    options: { foreground: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const [name] = p.positionals;
  if (name === undefined) throw new UserError(`autoloop-cron fire: missing <schedule>\n\n${HELP}`);
  const config = configOf(p);
  if (!runningDaemon(config.stateDir)) return fireInProcess(config, name);
  const fired = await fireThroughDaemon(config.stateDir, name);
  if (!flag(p, "foreground") || fired.runId === undefined) {
    process.stdout.write(`${fired.runId ?? fired.message}\n`);
    return 0;
  }
  // The run is the daemon's, yet a foreground fire is watched as one's own: Ctrl-C stops it
  // (through the daemon, which records why), and the command ends with the run's outcome.
  const runId = fired.runId;
  const stop = async (sig: NodeJS.Signals) => {
    process.stderr.write(`autoloop-cron: ${sig}: stopping ${runId} through the daemon\n`);
    // A run fired a moment ago may not have started yet: ask again until the daemon has it.
    const deadline = Date.now() + STOP_RETRY_MS;
    for (;;) {
      try {
        await stopRun(config.stateDir, runId, `${sig} to autoloop-cron fire --foreground`);
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          process.stderr.write(
            `autoloop-cron: could not stop ${runId}: ${(err as Error).message}\n`,
          );
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  process.once("SIGINT", (sig) => void stop(sig));
  process.once("SIGTERM", (sig) => void stop(sig));
  process.stdout.write(`${runId}\n`); // once Ctrl-C would stop it
  return exitCodeOf(await streamOutput(config, runId, true));
}
