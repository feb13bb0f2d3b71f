// Decides how a scheduled run ended, from its terminal journal record, exit status and who stopped it.

import { constants } from "node:os";
import { EXIT_CODES, stopReasonClass } from "../../journal/stop-reasons.js";
import {
  journalsItsEnd,
  type KillCause,
  type RunKind,
  type RunOutcome,
  type RunSpend,
  type SpendBasis,
} from "../ledger/run-outcome.js";

/** The harness's last word on a run: `loop.complete` or `loop.stop` with its reason. */
export interface TerminalRecord {
  topic: "loop.complete" | "loop.stop";
  reason: string;
  /** What the run spent, as its terminal record says (absent from other writers' records). */
  spend?: RunSpend;
  /** When its agent said to try again (`retry_after`), as an ISO time, when it could be read. */
  retryAfter?: string;
}

export interface OutcomeInput {
  kind: RunKind;
  terminal?: TerminalRecord;
  /** What the run spent: its harness's report, else its journal (`spendBasis` says which). */
  spend?: RunSpend;
  spendBasis?: SpendBasis;
  /** Undefined when unknown (an adopted run is not our child, so we never see its exit). */
  exitCode?: number;
  signal?: string;
  killedBy?: KillCause;
  spawnError?: string;
  durationMs: number;
  journalPath: string;
}

const EXIT_USAGE = EXIT_CODES.usage;
const EXIT_STOPPED = EXIT_CODES.stopped;
const EXIT_INTERRUPTED = EXIT_CODES.interrupted;

type Decision = Pick<RunOutcome, "status" | "basis" | "detail">;

function fromTerminal(t: TerminalRecord): Decision {
  if (t.topic === "loop.complete") return { status: "completed", basis: "journal" };
  if (t.reason === "backend_timeout") return { status: "timed_out", basis: "journal" };
  // Stopped-class reasons (max_iterations, stalled, ...) are "failed" too: the objective was
  // not met and a human may need to look; stopReason keeps the difference for the monitor.
  const cls = stopReasonClass(t.reason);
  return { status: cls === "interrupted" ? "interrupted" : "failed", basis: "journal" };
}

function fromExit(input: OutcomeInput): Decision {
  const { exitCode, signal, kind } = input;
  if (signal !== undefined)
    return { status: "interrupted", basis: "exit", detail: `killed by ${signal} (crash)` };
  if (exitCode === undefined)
    return {
      status: "interrupted",
      basis: "lost",
      detail: "process gone without a terminal record",
    };
  if (exitCode === 0) return { status: "completed", basis: "exit" };
  if (journalsItsEnd(kind)) {
    // A harness that wrote no terminal record: trust its documented exit codes.
    if (exitCode === EXIT_INTERRUPTED) return { status: "interrupted", basis: "exit" };
    if (exitCode === EXIT_USAGE)
      return { status: "failed", basis: "exit", detail: "harness usage or config error (exit 2)" };
    if (exitCode === EXIT_STOPPED)
      return { status: "failed", basis: "exit", detail: "harness stopped (exit 3)" };
  }
  return { status: "failed", basis: "exit", detail: exitDetail(exitCode) };
}

function decide(input: OutcomeInput): Decision {
  if (input.spawnError !== undefined)
    return { status: "failed", basis: "spawn", detail: input.spawnError };
  // Our own kill wins over whatever the dying harness journaled (usually `interrupted`).
  if (input.killedBy?.by === "timeout") return { status: "timed_out", basis: "timeout" };
  if (input.killedBy?.by === "operator")
    return { status: "killed", basis: "operator", detail: input.killedBy.reason };
  if (input.terminal !== undefined && !contradicted(input)) return fromTerminal(input.terminal);
  return fromExit(input);
}

/**
 * A `loop.complete` our harness did not exit 0 after is not its own: the harness exits 0 only
 * once it completed, and the journal is the run's to write. The exit decides then.
 */
function contradicted(input: OutcomeInput): boolean {
  return (
    input.terminal?.topic === "loop.complete" &&
    journalsItsEnd(input.kind) &&
    input.exitCode !== undefined &&
    input.exitCode !== 0
  );
}

/** The outcome of a finished run. Pure: every fact arrives in `input`. */
export function determineOutcome(input: OutcomeInput): RunOutcome {
  const decision = decide(input);
  const outcome: RunOutcome = {
    status: decision.status,
    basis: decision.basis,
    durationMs: input.durationMs,
    journalPath: input.journalPath,
  };
  if (input.terminal !== undefined && !contradicted(input))
    outcome.stopReason = input.terminal.reason;
  if (input.terminal?.retryAfter !== undefined) outcome.retryAfter = input.terminal.retryAfter;
  // The harness's report stands alone: a run's terminal record never fills in what it left out.
  const harness = input.spendBasis === "harness";
  const spend = harness ? input.spend : (input.spend ?? input.terminal?.spend);
  if (spend !== undefined) outcome.spend = spend;
  const spendBasis = harness ? "harness" : spend && "journal";
  if (spendBasis !== undefined) outcome.spendBasis = spendBasis;
  if (input.exitCode !== undefined) outcome.exitCode = input.exitCode;
  if (input.signal !== undefined) outcome.signal = input.signal;
  if (decision.detail !== undefined) outcome.detail = decision.detail;
  return outcome;
}

const SIGNALS_BY_NUMBER = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]));

/** "exit code 7", "exit code 127 (command not found)", "exit code 137 (128 + SIGKILL: killed by a signal?)". */
export function exitDetail(code: number): string {
  if (code === 127) return "exit code 127 (command not found)";
  if (code === 126) return "exit code 126 (not executable)";
  const signal = code > 128 ? SIGNALS_BY_NUMBER.get(code - 128) : undefined;
  return signal === undefined
    ? `exit code ${code}`
    : `exit code ${code} (128 + ${signal}: killed by a signal?)`;
}

/**
 * The facts an outcome is decided on, from a recorded code: the harness itself never exits
 * above 128 but for 130 (after journaling `interrupted`), so for it such a code is the
 * signal that killed it (a crash); a command's code is taken as it is.
 */
export function recordedExit(
  kind: RunKind,
  code: number,
): { exitCode: number } | { signal: NodeJS.Signals } {
  if (journalsItsEnd(kind) && code > 128 && code !== 130) {
    const signal = SIGNALS_BY_NUMBER.get(code - 128);
    if (signal !== undefined) return { signal: signal as NodeJS.Signals };
  }
  return { exitCode: code };
}
