// Watches a run that outlived a daemon restart: we are not its parent, so poll its pid and its journal.

import type { Logger } from "pino";
import { decodeRecord } from "../../journal/codec.js";
import { LineCursor, parseLines } from "../../journal/reader.js";
import {
  journalsItsEnd,
  type KillCause,
  type RunKind,
  type RunOutcome,
} from "../ledger/run-outcome.js";
import { isSameProcessAlive } from "./identity.js";
import { determineOutcome, recordedExit } from "./outcome.js";
import { journalPathFor, RunEndScan, UNREADABLE_JOURNAL } from "./outcome-journal.js";
import { bookedSpend } from "./outcome-spend.js";
import { inheritedEnv } from "./spec.js";
import { DEFAULT_KILL_GRACE_MS, groupTerminator } from "./termination.js";
import { exitStatusPath, readExitStatus, removeExitStatus } from "./wrapper.js";

export interface AdoptedRun {
  runId: string;
  kind: RunKind;
  pid: number;
  /** /proc starttime recorded at launch; guards against a reused pid. */
  startTime?: string;
  cwd: string;
  /** The run's output log: its wrapper records the exit status beside it. */
  outputPath?: string;
  /** Journal size at launch, so only the run's own era of the journal is read. */
  journalOffset?: number;
  /** Epoch ms the run started, for its duration. */
  startedAt?: number;
  /** Epoch ms at which the scheduler timeout ends the run (absent: none). */
  deadline?: number;
  killGraceMs?: number;
}

export interface AdoptedRunHandle {
  pid: number;
  done: Promise<RunOutcome>;
  stop(reason: string): void;
}

export interface AdoptDeps {
  now: () => number;
  pollMs: number;
  isAlive: (pid: number, startTime?: string) => boolean;
  /** Told once, when the watcher starts killing the run (timeout or operator stop). */
  onKill: ((cause: KillCause) => void) | undefined;
  /** Told once when the run's journal cannot be read (the run wrote something else there). */
  logger: Pick<Logger, "warn"> | undefined;
}

const defaultDeps: AdoptDeps = {
  now: Date.now,
  pollMs: 1000,
  isAlive: isSameProcessAlive,
  onKill: undefined,
  logger: undefined,
};

export function watchAdoptedRun(run: AdoptedRun, deps: Partial<AdoptDeps> = {}): AdoptedRunHandle {
  const d = { ...defaultDeps, ...deps };
  const journalPath = journalPathFor(run.cwd);
  const cursor = new LineCursor(journalPath, run.journalOffset ?? 0);
  const terminator = groupTerminator(run.pid, run.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  const startedAt = run.startedAt ?? d.now();
  const end = new RunEndScan(run.runId);
  let gone = false;
  const kill = (cause: KillCause): void => {
    if (gone || terminator.cause !== undefined) return;
    terminator.terminate(cause);
    d.onKill?.(cause);
  };

  // The journal is the run's: what it put there (a FIFO, a link) is reported once, read
  // again at each poll, and the run's end then comes from its exit if it stays unreadable;
  // no error of its files leaves this watcher's timer.
  let reported = false;
  const readJournal = (final: boolean): void => {
    try {
      const lines = cursor.readNew();
      if (final && cursor.pendingTail() !== "") lines.push(cursor.pendingTail());
      end.add(parseLines(lines, decodeRecord).items);
    } catch (err) {
      if (reported) return;
      reported = true;
      d.logger?.warn({ runId: run.runId, problem: (err as Error).message }, UNREADABLE_JOURNAL);
    }
  };

  const finish = (): RunOutcome => {
    terminator.reap();
    terminator.dispose();
    readJournal(true);
    // Not our child, so no exit status from the kernel: the wrapper wrote it down.
    const statusPath =
      run.outputPath === undefined ? undefined : exitStatusPath(run.outputPath, run.runId);
    const exitCode = statusPath === undefined ? undefined : readExitStatus(statusPath);
    if (statusPath !== undefined) removeExitStatus(statusPath);
    return determineOutcome({
      kind: run.kind,
      ...(journalsItsEnd(run.kind) && { terminal: end.terminal }),
      ...bookedSpend(run.kind, run.runId, journalPath, end, inheritedEnv(), exitCode),
      ...(exitCode !== undefined && recordedExit(run.kind, exitCode)),
      killedBy: terminator.cause,
      durationMs: d.now() - startedAt,
      journalPath,
    });
  };

  const done = new Promise<RunOutcome>((resolve, reject) => {
    const check = (): void => {
      try {
        if (run.deadline !== undefined && d.now() >= run.deadline) kill({ by: "timeout" });
        if (d.isAlive(run.pid, run.startTime)) {
          readJournal(false);
          return;
        }
        gone = true;
        clearInterval(timer);
        resolve(finish());
      } catch (err) {
        // Whoever awaits `done` records the run as lost; the timer must not throw.
        gone = true;
        clearInterval(timer);
        reject(err);
      }
    };
    const timer = setInterval(check, d.pollMs);
    check();
  });

  return {
    pid: run.pid,
    done,
    stop(reason) {
      kill({ by: "operator", reason });
    },
  };
}
