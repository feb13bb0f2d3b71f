// Launching and adopting runs with every step written to the run ledger (the daemon's one call per run).

import { removeHandover } from "../history/handover.js";
import type { Trigger } from "../ledger/events.js";
import type { ClaimResult } from "../ledger/inputs.js";
import type { RunLedger } from "../ledger/ledger.js";
import type { PendingEntry } from "../ledger/pending.js";
import type { KillCause, RunOutcome } from "../ledger/run-outcome.js";
import { type AdoptDeps, type AdoptedRunHandle, watchAdoptedRun } from "./adopt.js";
import { fetchedSpec } from "./fetch.js";
import type { RunHeartbeats } from "./heartbeats.js";
import { type LaunchStop, PendingLaunch } from "./launch-stop.js";
import {
  type LauncherDeps,
  type LaunchSpec,
  launchRun,
  MAX_TIMER_MS,
  type RunHandle,
} from "./launcher.js";
import { journalPathFor, journalSize } from "./outcome-journal.js";
import { launchArgv } from "./spec.js";

export type RecordedLaunch =
  | { kind: "launched"; handle: RunHandle }
  /** The slot already has a run (idempotency): nothing was spawned. */
  | { kind: "duplicate"; runId: string };

function killReason(cause: KillCause, timeoutMs: number | undefined): string {
  return cause.by === "operator" ? cause.reason : `no result after ${timeoutMs ?? 0} ms`;
}

/**
 * The end recorded for a run whose watcher failed (something it could not read threw): lost,
 * saying why. Without it the run would stay `running` in the ledger and pending.json.
 */
function endOfFailedWatcher(
  err: unknown,
  journalPath: string,
  log: Pick<LauncherDeps, "logger">["logger"],
  runId: string,
): RunOutcome {
  const detail = `its watcher failed: ${(err as Error)?.message ?? String(err)}`;
  log?.warn({ runId, err }, `run recorded as lost: ${detail}`);
  return { status: "interrupted", basis: "lost", durationMs: 0, journalPath, detail };
}

/** Claims the slot (or `key`) and records `scheduled`; nothing is spawned yet. */
export function claimLaunch(
  ledger: RunLedger,
  spec: LaunchSpec,
  trigger: Trigger,
  hook?: { key: string; id: string },
): ClaimResult {
  const { runId, schedule, slot, kind, cwd, timeoutMs } = spec;
  const argv = launchArgv(spec);
  const budget = spec.kind === "preset" ? spec.budget : undefined;
  const review = spec.kind === "preset" ? spec.review?.number : undefined;
  return ledger.schedule({
    ...{ runId, schedule, slot, trigger, kind, argv, cwd, timeoutMs },
    ...(budget?.usd !== undefined && { budgetUsd: budget.usd }),
    ...(budget?.tokens !== undefined && { budgetTokens: budget.tokens }),
    ...(spec.retry !== undefined && spec.retry),
    ...(hook !== undefined && { key: hook.key, hookId: hook.id }),
    ...(review !== undefined && { review }),
  });
}

/** Who beats for the runs this process launches or adopts (heartbeats.ts); none: no beats. */
export interface Beating {
  heartbeats?: RunHeartbeats | undefined;
}

/** The handle of a run that ended before its process was spawned, with `outcome`. */
function notStarted(spec: LaunchSpec, outcome: RunOutcome): RunHandle {
  return {
    runId: spec.runId,
    pid: undefined,
    startTime: undefined,
    journalPath: outcome.journalPath,
    journalOffset: journalSize(outcome.journalPath),
    outputPath: spec.outputPath,
    done: Promise.resolve(outcome),
    stop: () => {},
  };
}

/** A run that never started because its remote could not be fetched: a transient failure. */
function unfetched(
  spec: LaunchSpec,
  detail: string,
  durationMs: number,
  stopReason = "transient_error",
): RunHandle {
  return notStarted(spec, {
    status: "failed",
    basis: "fetch",
    stopReason,
    durationMs,
    journalPath: journalPathFor(spec.cwd),
    detail: `the run did not start: ${detail}`,
  });
}

/**
 * A run stopped while its remote was fetched: recorded as a stop of a running run is (killed
 * by its operator, timed out), or interrupted by the daemon's shutdown; nothing was spawned.
 */
function stoppedBeforeSpawn(
  ledger: RunLedger,
  spec: LaunchSpec,
  stop: LaunchStop,
  durationMs: number,
): RunHandle {
  const journalPath = journalPathFor(spec.cwd);
  const before = "before the run started (while its remote was fetched); nothing was spawned";
  if (stop.by === "shutdown") {
    ledger.interrupted(spec.runId, `the daemon stopped ${before}`);
    return notStarted(spec, {
      ...{ status: "interrupted", basis: "operator", durationMs, journalPath },
      detail: `the daemon stopped ${before}`,
    });
  }
  ledger.killed(spec.runId, stop.by, killReason(stop, spec.timeoutMs));
  const timedOut = stop.by === "timeout";
  return notStarted(spec, {
    status: timedOut ? "timed_out" : "killed",
    basis: timedOut ? "timeout" : "operator",
    durationMs,
    journalPath,
    detail: `${timedOut ? "the schedule's timeout passed" : `stopped (${stop.reason})`} ${before}`,
  });
}

/**
 * The spec fetched (when it fetches), within the run's timeout and stoppable by `pending`;
 * the time left of the timeout goes to the run.
 */
async function fetchWithin(
  spec: LaunchSpec,
  env: NodeJS.ProcessEnv,
  pending: PendingLaunch,
  logger: Pick<LauncherDeps, "logger">["logger"],
) {
  const timer =
    spec.timeoutMs !== undefined && spec.timeoutMs > 0
      ? setTimeout(() => pending.expire(), Math.min(spec.timeoutMs, MAX_TIMER_MS))
      : undefined;
  try {
    return await fetchedSpec(spec, env, pending.signal, (notice) =>
      logger?.warn({ schedule: spec.schedule, runId: spec.runId }, notice),
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Spawns a run claimed by `claimLaunch` (after fetching its remote, when it fetches) and
 * records `started` (with the pid) as soon as the pid is known, `killed` when the launcher
 * starts killing, and `finished`. `pending` stops it before its spawn too.
 */
export async function startClaimed(
  ledger: RunLedger,
  claimed: LaunchSpec,
  deps: Partial<LauncherDeps> & Beating & { pending?: PendingLaunch } = {},
): Promise<RunHandle> {
  const now = deps.now ?? Date.now;
  const pending = deps.pending ?? new PendingLaunch();
  const fetchStart = now();
  const ready = await fetchWithin(claimed, deps.env ?? process.env, pending, deps.logger);
  const spec = ready.kind === "ready" ? ready.spec : claimed;
  const { runId, timeoutMs } = spec;
  const fetchMs = now() - fetchStart;
  const handle = !pending.spawning()
    ? stoppedBeforeSpawn(ledger, spec, pending.stoppedBy!, fetchMs)
    : ready.kind === "failed"
      ? unfetched(spec, ready.detail, fetchMs, ready.stopReason)
      : await launchRun(
          // The fetch counted toward the timeout: the run has what is left of it.
          timeoutMs ? { ...spec, timeoutMs: Math.max(1, timeoutMs - fetchMs) } : spec,
          {
            ...deps,
            onKill: (cause) => {
              ledger.killed(runId, cause.by, killReason(cause, timeoutMs));
              deps.onKill?.(cause);
            },
          },
        );
  pending.spawned(handle);
  if (handle.pid !== undefined) {
    const { pid, startTime, outputPath, journalPath, journalOffset } = handle;
    deps.heartbeats?.start({ runId, schedule: spec.schedule, pid, startTime });
    const from = spec.kind === "preset" ? spec.startFrom : undefined;
    const review = spec.kind === "preset" ? spec.review?.number : undefined;
    ledger.started(runId, {
      ...{ pid, startTime, outputPath, journalPath, journalOffset },
      ...(from !== undefined && { from }),
      ...(review !== undefined && { review }),
    });
  }
  const done = handle.done
    .catch((err: unknown) => endOfFailedWatcher(err, handle.journalPath, deps.logger, runId))
    .then((outcome) => {
      ledger.finished(runId, outcome);
      deps.heartbeats?.end(runId);
      removeHandover(spec.cwd, runId);
      return outcome;
    });
  return { ...handle, done };
}

/** Claims the slot, then spawns the run (`fire` without a daemon: every write fsyncs first). */
export async function launchRecorded(
  ledger: RunLedger,
  spec: LaunchSpec,
  trigger: Trigger,
  deps: Partial<LauncherDeps> & Beating = {},
): Promise<RecordedLaunch> {
  const claim = claimLaunch(ledger, spec, trigger);
  if (claim.kind === "duplicate") return claim;
  return { kind: "launched", handle: await startClaimed(ledger, spec, deps) };
}

/** Adopts a live run found by `recoverPending`, keeping its timeout, and records its end. */
export function adoptRecorded(
  ledger: RunLedger,
  entry: PendingEntry & { pid: number },
  { heartbeats, ...deps }: Partial<AdoptDeps> & Beating = {},
): AdoptedRunHandle {
  heartbeats?.start(entry);
  ledger.adopted(entry.runId, entry.pid, entry.startTime);
  const startedAt = Date.parse(entry.startedAt ?? entry.scheduledAt);
  const known = !Number.isNaN(startedAt);
  const handle = watchAdoptedRun(
    {
      runId: entry.runId,
      kind: entry.kind,
      pid: entry.pid,
      startTime: entry.startTime,
      cwd: entry.cwd,
      ...(entry.outputPath !== undefined && { outputPath: entry.outputPath }),
      journalOffset: entry.journalOffset,
      startedAt: known ? startedAt : undefined,
      deadline: known && entry.timeoutMs ? startedAt + entry.timeoutMs : undefined,
    },
    {
      ...deps,
      onKill: (cause) => {
        ledger.killed(entry.runId, cause.by, killReason(cause, entry.timeoutMs));
        deps.onKill?.(cause);
      },
    },
  );
  const journalPath = journalPathFor(entry.cwd);
  const done = handle.done
    .catch((err: unknown) => endOfFailedWatcher(err, journalPath, deps.logger, entry.runId))
    .then((outcome) => {
      ledger.finished(entry.runId, outcome);
      heartbeats?.end(entry.runId);
      removeHandover(entry.cwd, entry.runId);
      return outcome;
    });
  return { ...handle, done };
}
