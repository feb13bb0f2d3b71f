// What callers hand the run ledger: its dependencies and the facts of a run at each step.

import pino, { type Logger } from "pino";
import { appendLineOnce } from "../journal/append.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { RunKind, SkipCause, Trigger } from "./events.js";

export interface LedgerDeps {
  now: () => Date;
  logger: Pick<Logger, "error" | "warn">;
  appendLine: (path: string, line: string) => void;
  writeAtomic: (path: string, content: string) => void;
}

export const defaultLedgerDeps = (): LedgerDeps => ({
  now: () => new Date(),
  logger: pino({ name: "run-ledger" }),
  appendLine: (path, line) => appendLineOnce(path, line, { private: true }),
  writeAtomic: writeFileAtomic,
});

export interface SlotRun {
  runId: string;
  schedule: string;
  slot: Date;
  trigger: Trigger;
}

export interface PlannedRun extends SlotRun {
  kind: RunKind;
  argv: string[];
  cwd: string;
  timeoutMs?: number;
}

export interface SkippedRun extends SlotRun {
  cause: SkipCause;
  detail?: string;
}

export type ClaimResult = { kind: "claimed"; key: string } | { kind: "duplicate"; runId: string };

export interface StartInfo {
  pid: number;
  startTime?: string;
  outputPath: string;
  journalPath: string;
  journalOffset: number;
}
