// What callers hand the run ledger: its dependencies and the facts of a run at each step.

import { appendLineOnce } from "../../journal/append.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { claimFile, type FileClaim } from "./claim-files.js";
import type { RetakePolicy } from "./claim-retake.js";
import type { RunKind, SkipCause, Trigger } from "./events.js";

/** What the ledger logs with: a pino logger, or the default below. */
export interface LedgerLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * One JSON line per message on stderr, in pino's shape. The harness reads the ledger too
 * (`autoloop runs`), and loading pino would slow every agent run's start.
 */
const stderrLogger: LedgerLogger = {
  error: (fields, msg) => writeLine(50, fields, msg),
  warn: (fields, msg) => writeLine(40, fields, msg),
};

function writeLine(level: number, fields: object, msg: string): void {
  const err = (fields as { err?: unknown }).err;
  const shown = err instanceof Error ? { ...fields, err: { message: err.message } } : fields;
  process.stderr.write(
    `${JSON.stringify({ level, time: Date.now(), name: "run-ledger", ...shown, msg })}\n`,
  );
}

export interface LedgerDeps {
  now: () => Date;
  logger: LedgerLogger;
  appendLine: (path: string, line: string) => void;
  writeAtomic: (path: string, content: string) => void;
  /** Creates a slot's claim file for a run, atomically across hosts sharing the state dir. */
  claimFile: (path: string, runId: string) => FileClaim;
  /** Resolves once every write made so far is on disk; the writes above fsync before returning. */
  durable: () => Promise<void>;
  /** When an orphaned claim (no ledger line) is retaken; absent: never (readers, tests). */
  retake?: RetakePolicy | undefined;
}

export const defaultLedgerDeps = (): LedgerDeps => ({
  now: () => new Date(),
  logger: stderrLogger,
  appendLine: (path, line) => appendLineOnce(path, line, { private: true }),
  writeAtomic: writeFileAtomic,
  claimFile,
  durable: () => Promise.resolve(),
});

export interface SlotRun {
  runId: string;
  schedule: string;
  slot: Date;
  trigger: Trigger;
  /** A retry of the slot: its attempt (2 and up) claims a key of its own. */
  attempt?: number;
  /** The key it claims instead of `<schedule>@<slot>` (a webhook delivery's: see hooks/). */
  key?: string;
}

export interface PlannedRun extends SlotRun {
  kind: RunKind;
  argv: string[];
  cwd: string;
  timeoutMs?: number;
  budgetUsd?: number;
  budgetTokens?: number;
  /** A retry's first attempt. */
  parentRunId?: string;
  hookId?: string;
  /** The pull request a review run is for (`deliver.review`). */
  review?: number;
}

export interface SkippedRun extends SlotRun {
  cause: SkipCause;
  detail?: string;
  /** A skipped retry's first attempt. */
  parentRunId?: string | undefined;
}

export type ClaimResult = { kind: "claimed"; key: string } | { kind: "duplicate"; runId: string };

export interface StartInfo {
  pid: number;
  startTime?: string;
  outputPath: string;
  journalPath: string;
  journalOffset: number;
  /** What the daemon fetched and the run's worktree started from (a run that fetches). */
  from?: { branch: string; commit: string };
  /** The pull request a review run checked out (`deliver.review`). */
  review?: number;
}
