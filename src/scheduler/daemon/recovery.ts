// After a daemon restart: decide for each pending run whether to adopt it, close it from its journal, or mark it interrupted.

import type { Logger } from "pino";
import { findProcessByRunId, isRunProcess } from "../launch/identity.js";
import { determineOutcome, recordedExit } from "../launch/outcome.js";
import { journalPathFor, readRunEndOr, UNREADABLE_JOURNAL } from "../launch/outcome-journal.js";
import { bookedSpend } from "../launch/outcome-spend.js";
import { adoptRecorded, type Beating } from "../launch/recorded-launch.js";
import { runLiveness } from "../launch/run-liveness.js";
import { inheritedEnv } from "../launch/spec.js";
import { exitStatusPath, readExitStatus, removeExitStatus } from "../launch/wrapper.js";
import type { RunLedger } from "../ledger/ledger.js";
import { type PendingEntry, withStart } from "../ledger/pending.js";
import { journalsItsEnd, type RunOutcome } from "../ledger/run-outcome.js";
import { slotOfKey } from "../ledger/slots.js";
import type { ActiveRun } from "./run-table.js";

export type Recovery =
  /** Still running: hand it to `watchAdoptedRun` (see `adoptRecorded`). */
  | { kind: "adopt"; entry: PendingEntry & { pid: number } }
  /** Alive on another host, by its launcher's heartbeat: that launcher watches it, not us. */
  | { kind: "elsewhere"; entry: PendingEntry & { pid: number }; host: string }
  /** Ended while the daemon was down, and its journal says how. */
  | { kind: "finished"; entry: PendingEntry; outcome: RunOutcome }
  | {
      kind: "interrupted";
      entry: Pick<PendingEntry, "runId" | "schedule" | "slot">;
      reason: string;
    }
  /** Its entry could not be recovered (it threw): ended as lost when the ledger took it. */
  | { kind: "unrecoverable"; runId: string; problem: string };

export interface RecoveryDeps {
  now: () => number;
  /** Alive and provably the run's harness (see `isRunProcess`). */
  isAlive: (pid: number, runId: string, startTime?: string) => boolean;
  /** Finds a run's harness by its environment when no pid was recorded (crash right after spawn). */
  findByRunId: (runId: string) => { pid: number; startTime: string | undefined } | undefined;
  /** Told of a run's journal that could not be read (its end then comes from its exit). */
  report: (runId: string, problem: string) => void;
}

const defaultDeps: RecoveryDeps = {
  now: Date.now,
  isAlive: isRunProcess,
  findByRunId: findProcessByRunId,
  report: () => {},
};

/** The run still running, here (to adopt) or on another host (to leave to its launcher). */
function live(
  ledger: RunLedger,
  entry: PendingEntry,
  deps: RecoveryDeps,
): Extract<Recovery, { kind: "adopt" | "elsewhere" }> | undefined {
  if (entry.pid !== undefined) {
    const { runId, pid, startTime } = entry;
    const liveness = runLiveness(
      ledger.stateDir,
      { runId, pid, startTime },
      {
        now: deps.now,
        isRunProcess: deps.isAlive,
      },
    );
    if (!liveness.alive) return undefined;
    return liveness.where === "here"
      ? { kind: "adopt", entry: { ...entry, pid } }
      : { kind: "elsewhere", entry: { ...entry, pid }, host: liveness.host };
  }
  const found = deps.findByRunId(entry.runId);
  if (found === undefined || !deps.isAlive(found.pid, entry.runId, found.startTime))
    return undefined;
  return { kind: "adopt", entry: { ...entry, pid: found.pid, startTime: found.startTime } };
}

/**
 * A pending entry written before its run's start was (the daemon died between the run's
 * `started` event and the next write of pending.json): its pid and output log from the log,
 * so the run is adopted and its recorded exit status found.
 */
function startedFromLog(ledger: RunLedger, entry: PendingEntry): PendingEntry {
  if (entry.pid !== undefined) return entry;
  const started = ledger.replay(entry.runId)?.events.findLast((e) => e.event === "started");
  return started?.event === "started" ? withStart(entry, started, started.ts) : entry;
}

/**
 * Goes through pending.json once. Runs that are over are closed in the ledger here (the
 * journal is the truth; no terminal record means interrupted); live runs are returned
 * for the caller to adopt, which records `adopted`. An entry that throws (a field of the
 * wrong type, a time or offset out of range) is one run lost, never the daemon's start.
 */
export function recoverPending(
  ledger: RunLedger,
  deps: Partial<RecoveryDeps> = {},
  /** Only these runs (a later look at runs left to other hosts); else every pending run. */
  only?: ReadonlySet<string>,
): Recovery[] {
  const d = { ...defaultDeps, ...deps };
  const actions: Array<Recovery | undefined> = [];
  // A later look leaves claims alone: this daemon's own launches may be between claim and list.
  if (only === undefined)
    for (const stranded of ledger.strandedClaims())
      actions.push(guarded(ledger, stranded.runId, () => recoverClaim(ledger, stranded)));
  for (const listed of ledger.pending()) {
    if (only !== undefined && !only.has(listed.runId)) continue;
    if (ledger.dropEnded(listed.runId)) continue;
    actions.push(guarded(ledger, listed.runId, () => recoverEntry(ledger, listed, d)));
  }
  return actions.filter((a): a is Recovery => a !== undefined);
}

/** `recover()`, or when it throws, the run ended as interrupted with the problem as reason. */
function guarded(
  ledger: RunLedger,
  runId: string,
  recover: () => Recovery | undefined,
): Recovery | undefined {
  try {
    return recover();
  } catch (err) {
    const problem = `its entry could not be recovered: ${(err as Error)?.message ?? String(err)}`;
    try {
      ledger.interrupted(runId, problem);
    } catch {
      // Reported below all the same; the next start meets it again.
    }
    return { kind: "unrecoverable", runId, problem };
  }
}

/** A claim pending.json never listed: relisted (then recovered below) or never started. */
function recoverClaim(
  ledger: RunLedger,
  { runId, key, entry }: { runId: string; key: string; entry?: PendingEntry },
): Recovery | undefined {
  if (entry !== undefined) {
    ledger.relist(entry); // then recovered like any pending run
    return undefined;
  }
  const found = slotOfKey(key, runId);
  // A retry's claim: its slot's first run is the one that claimed the slot's own key.
  const root = found.attempt === undefined ? undefined : ledger.slotOwner(key.replace(/#\d+$/, ""));
  const slot = root === undefined ? found : { ...found, parentRunId: root };
  const reason = "the daemon stopped right after claiming the slot: never started";
  ledger.interrupted(runId, reason, slot);
  return { kind: "interrupted", entry: { runId, ...slot }, reason };
}

/** One pending run: adopted when alive, else closed from its journal and exit status. */
function recoverEntry(ledger: RunLedger, listed: PendingEntry, d: RecoveryDeps): Recovery {
  const entry = startedFromLog(ledger, listed);
  const alive = live(ledger, entry, d);
  if (alive) return alive;
  const journalPath = journalPathFor(entry.cwd);
  const end = journalsItsEnd(entry.kind)
    ? readRunEndOr(journalPath, entry.runId, entry.journalOffset ?? 0, (problem) =>
        d.report(entry.runId, problem),
      )
    : undefined;
  const terminal = end?.terminal;
  // The run's wrapper recorded how the program ended, daemon or not.
  const statusPath =
    entry.outputPath === undefined ? undefined : exitStatusPath(entry.outputPath, entry.runId);
  const exitCode = statusPath === undefined ? undefined : readExitStatus(statusPath);
  if (terminal || exitCode !== undefined) {
    const startedAt = Date.parse(entry.startedAt ?? entry.scheduledAt);
    const durationMs = Number.isNaN(startedAt) ? 0 : Math.max(0, d.now() - startedAt);
    const outcome = determineOutcome({
      kind: entry.kind,
      ...(terminal && { terminal }),
      ...bookedSpend(entry.kind, entry.runId, journalPath, end, inheritedEnv(), exitCode),
      ...(exitCode !== undefined && recordedExit(entry.kind, exitCode)),
      durationMs,
      journalPath,
    });
    ledger.finished(entry.runId, outcome);
    if (statusPath !== undefined) removeExitStatus(statusPath);
    return { kind: "finished", entry, outcome };
  }
  const reason =
    entry.pid === undefined
      ? "no pid was recorded and no process carries the run id: never started, or lost"
      : "the process ended while the daemon was down, without a terminal record";
  ledger.interrupted(entry.runId, reason);
  return { kind: "interrupted", entry, reason };
}

/**
 * After a restart: adopts each run still alive (through `adopt`) and logs how the others ended.
 * Returns the runs left to a launcher on another host, for a later look (`only`): once their
 * heartbeats go stale, that launcher is gone (a host down, a lease taken over) and they close.
 */
export function resumePending(
  ledger: RunLedger,
  log: Logger,
  adopt: (run: ActiveRun) => void,
  {
    heartbeats,
    ended = () => {},
    only,
  }: Beating & {
    /** Told of each run that ended while no daemon watched it (its pull request is owed). */
    ended?: (run: { schedule: string; runId: string; outcome: RunOutcome }) => void;
    only?: ReadonlySet<string>;
  } = {},
): Set<string> {
  const report = (runId: string, problem: string) =>
    log.warn({ runId, problem }, UNREADABLE_JOURNAL);
  const elsewhere = new Set<string>();
  for (const action of recoverPending(ledger, { report }, only)) {
    if (action.kind === "adopt") {
      const { runId, schedule, pid } = action.entry;
      const problem = guarded(ledger, runId, () => {
        const handle = adoptRecorded(ledger, action.entry, { logger: log, heartbeats });
        adopt({ runId, schedule, stop: handle.stop, done: handle.done });
        return undefined;
      });
      if (problem === undefined)
        log.info(
          { runId, runPid: pid, schedule },
          "adopted a run that outlived the previous daemon",
        );
      else logUnrecoverable(log, problem);
    } else if (action.kind === "elsewhere") {
      elsewhere.add(action.entry.runId);
      if (only !== undefined) continue; // said at the first look
      log.info(
        { runId: action.entry.runId, schedule: action.entry.schedule, host: action.host },
        "a run launched on another host is alive there (its heartbeat is fresh): left to its launcher",
      );
    } else if (action.kind === "finished") {
      log.info(
        { runId: action.entry.runId, status: action.outcome.status },
        "run finished while the daemon was down",
      );
      const { schedule, runId } = action.entry;
      ended({ schedule, runId, outcome: action.outcome });
    } else if (action.kind === "interrupted") {
      log.warn(
        { runId: action.entry.runId, reason: action.reason },
        "run marked interrupted: its process is gone",
      );
    } else logUnrecoverable(log, action);
  }
  return elsewhere;
}

function logUnrecoverable(log: Logger, action: Recovery): void {
  if (action.kind !== "unrecoverable") return;
  log.error(
    { runId: action.runId, problem: action.problem },
    `run ${action.runId} not recovered (${action.problem}); recorded as interrupted, the daemon goes on`,
  );
}
