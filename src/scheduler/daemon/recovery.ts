// After a daemon restart: decide for each pending run whether to adopt it, close it from its journal, or mark it interrupted.

import type { Logger } from "pino";
import { findProcessByRunId, isRunProcess } from "../launch/identity.js";
import {
  determineOutcome,
  journalsItsEnd,
  type RunOutcome,
  recordedExit,
} from "../launch/outcome.js";
import { journalPathFor, readRunEnd } from "../launch/outcome-journal.js";
import { exitStatusPath, readExitStatus, removeExitStatus } from "../launch/wrapper.js";
import type { RunLedger } from "../ledger/ledger.js";
import { type PendingEntry, withStart } from "../ledger/pending.js";
import { slotOfKey } from "../ledger/slots.js";
import { adoptRecorded } from "./recorded-launch.js";
import type { ActiveRun } from "./run-table.js";

export type Recovery =
  /** Still running: hand it to `watchAdoptedRun` (see `adoptRecorded`). */
  | { kind: "adopt"; entry: PendingEntry & { pid: number } }
  /** Ended while the daemon was down, and its journal says how. */
  | { kind: "finished"; entry: PendingEntry; outcome: RunOutcome }
  | {
      kind: "interrupted";
      entry: Pick<PendingEntry, "runId" | "schedule" | "slot">;
      reason: string;
    };

export interface RecoveryDeps {
  now: () => number;
  /** Alive and provably the run's harness (see `isRunProcess`). */
  isAlive: (pid: number, runId: string, startTime?: string) => boolean;
  /** Finds a run's harness by its environment when no pid was recorded (crash right after spawn). */
  findByRunId: (runId: string) => { pid: number; startTime: string | undefined } | undefined;
}

const defaultDeps: RecoveryDeps = {
  now: Date.now,
  isAlive: isRunProcess,
  findByRunId: findProcessByRunId,
};

function live(
  entry: PendingEntry,
  deps: RecoveryDeps,
): (PendingEntry & { pid: number }) | undefined {
  if (entry.pid !== undefined)
    return deps.isAlive(entry.pid, entry.runId, entry.startTime)
      ? { ...entry, pid: entry.pid }
      : undefined;
  const found = deps.findByRunId(entry.runId);
  if (found === undefined || !deps.isAlive(found.pid, entry.runId, found.startTime))
    return undefined;
  return { ...entry, pid: found.pid, startTime: found.startTime };
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
 * for the caller to adopt, which records `adopted`.
 */
export function recoverPending(ledger: RunLedger, deps: Partial<RecoveryDeps> = {}): Recovery[] {
  const d = { ...defaultDeps, ...deps };
  const actions: Recovery[] = [];
  for (const { runId, key, entry } of ledger.strandedClaims()) {
    if (entry !== undefined) {
      ledger.relist(entry); // then recovered like any pending run, below
      continue;
    }
    const found = slotOfKey(key, runId);
    // A retry's claim: its slot's first run is the one that claimed the slot's own key.
    const root =
      found.attempt === undefined ? undefined : ledger.slotOwner(key.replace(/#\d+$/, ""));
    const slot = root === undefined ? found : { ...found, parentRunId: root };
    const reason = "the daemon stopped right after claiming the slot: never started";
    ledger.interrupted(runId, reason, slot);
    actions.push({ kind: "interrupted", entry: { runId, ...slot }, reason });
  }
  for (const listed of ledger.pending()) {
    if (ledger.dropEnded(listed.runId)) continue;
    const entry = startedFromLog(ledger, listed);
    const alive = live(entry, d);
    if (alive) {
      actions.push({ kind: "adopt", entry: alive });
      continue;
    }
    const journalPath = journalPathFor(entry.cwd);
    const end = journalsItsEnd(entry.kind)
      ? readRunEnd(journalPath, entry.runId, entry.journalOffset ?? 0)
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
        spend: end?.spend(),
        ...(exitCode !== undefined && recordedExit(entry.kind, exitCode)),
        durationMs,
        journalPath,
      });
      ledger.finished(entry.runId, outcome);
      if (statusPath !== undefined) removeExitStatus(statusPath);
      actions.push({ kind: "finished", entry, outcome });
      continue;
    }
    const reason =
      entry.pid === undefined
        ? "no pid was recorded and no process carries the run id: never started, or lost"
        : "the process ended while the daemon was down, without a terminal record";
    ledger.interrupted(entry.runId, reason);
    actions.push({ kind: "interrupted", entry, reason });
  }
  return actions;
}

/** After a restart: adopts each run still alive (through `adopt`) and logs how the others ended. */
export function resumePending(
  ledger: RunLedger,
  log: Logger,
  adopt: (run: ActiveRun) => void,
): void {
  for (const action of recoverPending(ledger)) {
    if (action.kind === "adopt") {
      const handle = adoptRecorded(ledger, action.entry);
      const { runId, schedule, pid } = action.entry;
      log.info({ runId, runPid: pid, schedule }, "adopted a run that outlived the previous daemon");
      adopt({ runId, schedule, stop: handle.stop, done: handle.done });
    } else if (action.kind === "finished") {
      log.info(
        { runId: action.entry.runId, status: action.outcome.status },
        "run finished while the daemon was down",
      );
    } else {
      log.warn(
        { runId: action.entry.runId, reason: action.reason },
        "run marked interrupted: its process is gone",
      );
    }
  }
}
