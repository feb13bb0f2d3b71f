// Launches one run as its own process group, captures its output, enforces its timeout, reports its outcome.
import type { Logger } from "pino";
import type { KillCause, RunOutcome } from "../ledger/run-outcome.js";
import { determineOutcome, recordedExit } from "./outcome.js";
import {
  journalPathFor,
  journalSize,
  readRunEndOr,
  UNREADABLE_JOURNAL,
} from "./outcome-journal.js";
import { bookedSpend } from "./outcome-spend.js";
import { OUTPUT_CHECK_MS, OutputCap } from "./output-log.js";
import { type ExitResult, type ProcessStarter, startDirectly } from "./process-start.js";
import { type LaunchSpec, launchArgv, launchEnv } from "./spec.js";
import { DEFAULT_KILL_GRACE_MS, groupTerminator } from "./termination.js";
import { exitStatusPath, readExitStatus, removeExitStatus, wrappedArgv } from "./wrapper.js";

export type { LaunchSpec } from "./spec.js";

export interface RunHandle {
  runId: string;
  /** Undefined when the program could not be spawned (then `done` resolves `failed`). */
  pid: number | undefined;
  /** /proc starttime of the harness, to recognise it after a daemon restart. */
  startTime: string | undefined;
  journalPath: string;
  /** Journal size at launch: the run's records all lie after it. */
  journalOffset: number;
  outputPath: string;
  done: Promise<RunOutcome>;
  /** Operator stop: SIGTERM the group, SIGKILL after the grace; the outcome is `killed`. */
  stop(reason: string): void;
}

export interface LauncherDeps {
  now: () => number;
  env: NodeJS.ProcessEnv;
  logger: Pick<Logger, "warn"> | undefined;
  /** Told once, when the launcher starts killing the run (timeout or operator stop). */
  onKill: ((cause: KillCause) => void) | undefined;
  /** Spawns the process: from this process, or through the daemon's spawn helper. */
  start: ProcessStarter;
}

const defaultDeps: LauncherDeps = {
  now: Date.now,
  env: process.env,
  logger: undefined,
  onKill: undefined,
  start: startDirectly,
};

/** setTimeout overflows past 2^31-1 ms (~24.8 days) and would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Resolves once the run's process is spawned (or failed to be); rejects when its log cannot be opened. */
export async function launchRun(
  spec: LaunchSpec,
  deps: Partial<LauncherDeps> = {},
): Promise<RunHandle> {
  const d = { ...defaultDeps, ...deps };
  const journalPath = journalPathFor(spec.cwd);
  const journalOffset = journalSize(journalPath);
  const startedAt = d.now();
  const graceMs = spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const statusPath = exitStatusPath(spec.outputPath, spec.runId);
  const [file, ...args] = wrappedArgv(statusPath, launchArgv(spec));
  const env = launchEnv(spec, d.env);
  const child = await d.start({
    runId: spec.runId,
    file: file!,
    args,
    cwd: spec.cwd,
    env,
    outputPath: spec.outputPath,
  });
  const cap = new OutputCap(spec.outputPath, spec.outputCapBytes);
  const capTimer = setInterval(() => cap.check(), OUTPUT_CHECK_MS);
  capTimer.unref();

  const pid = child.pid;
  const terminator = pid === undefined ? undefined : groupTerminator(pid, graceMs);
  // Once the harness has exited on its own, a late stop or timeout must not relabel it.
  let exited = false;
  const kill = (cause: KillCause): void => {
    if (exited || terminator === undefined || terminator.cause !== undefined) return;
    terminator.terminate(cause);
    d.onKill?.(cause);
  };
  const timeoutTimer = spec.timeoutMs
    ? setTimeout(() => kill({ by: "timeout" }), Math.min(spec.timeoutMs, MAX_TIMER_MS))
    : undefined;
  const done = (async (): Promise<RunOutcome> => {
    const result = await child.exit;
    exited = true;
    // Descendants left in the group would keep the run open forever.
    terminator?.reap();
    clearTimeout(timeoutTimer);
    clearInterval(capTimer);
    cap.check();
    terminator?.dispose();
    return outcomeAfterExit(spec, d, result, {
      journalPath,
      journalOffset,
      statusPath,
      env,
      killedBy: terminator?.cause,
      spawned: pid !== undefined,
      startedAt,
    });
  })();

  return {
    runId: spec.runId,
    pid,
    startTime: child.startTime,
    journalPath,
    journalOffset,
    outputPath: spec.outputPath,
    done,
    stop(reason) {
      kill({ by: "operator", reason });
    },
  };
}

/** What a run's outcome is read from once its process has exited. */
interface ExitFacts {
  journalPath: string;
  /** Journal size at launch: the run's records all lie after it. */
  journalOffset: number;
  /** The wrapper's exit status file. */
  statusPath: string;
  /** The run's environment (where its spend may be booked). */
  env: NodeJS.ProcessEnv;
  killedBy: KillCause | undefined;
  spawned: boolean;
  startedAt: number;
}

/** The run's outcome: its own exit status, its journal's end record and its booked spend. */
function outcomeAfterExit(
  spec: LaunchSpec,
  d: LauncherDeps,
  result: ExitResult,
  f: ExitFacts,
): RunOutcome {
  // The program's own status, as the wrapper recorded it; none when the group was killed.
  const recorded = readExitStatus(f.statusPath);
  removeExitStatus(f.statusPath);
  const unreadable = (problem: string) =>
    d.logger?.warn({ runId: spec.runId, problem }, UNREADABLE_JOURNAL);
  const end =
    spec.kind !== "command"
      ? readRunEndOr(f.journalPath, spec.runId, f.journalOffset, unreadable)
      : undefined;
  return determineOutcome({
    kind: spec.kind,
    terminal: end?.terminal,
    ...bookedSpend(spec.kind, spec.runId, f.journalPath, end, f.env, recorded),
    ...(recorded === undefined
      ? { exitCode: result.exitCode, signal: result.signal }
      : recordedExit(spec.kind, recorded)),
    killedBy: f.killedBy,
    spawnError: f.spawned ? undefined : (result.failure ?? "spawn failed"),
    durationMs: d.now() - f.startedAt,
    journalPath: f.journalPath,
  });
}
