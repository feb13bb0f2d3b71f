// Runs written into a state dir's real ledger, for the digest's tests: each ends at its slot
// plus its duration, with the outcome and spend given.

import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import type { TerminalStatus } from "../../src/scheduler/ledger/run-outcome.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";

export interface SeededRun {
  schedule: string;
  /** ISO slot time. */
  slot: string;
  status: TerminalStatus;
  durationMs?: number;
  costUsd?: number;
  stopReason?: string;
}

const quiet = { warn() {}, error() {} };

/** Writes the runs (scheduled, then finished at slot + duration); returns their ids. */
export function seedRuns(stateDir: string, runs: SeededRun[]): string[] {
  let now = new Date(0);
  const ledger = RunLedger.open(stateDir, { now: () => now, logger: quiet });
  return runs.map((r) => {
    const slot = new Date(r.slot);
    const runId = newScheduledRunId(r.schedule, slot);
    now = slot;
    ledger.schedule({
      runId,
      schedule: r.schedule,
      slot,
      trigger: "cron",
      kind: "command",
      argv: ["true"],
      cwd: "/",
    });
    const durationMs = r.durationMs ?? 60_000;
    now = new Date(slot.getTime() + durationMs);
    ledger.finished(runId, {
      status: r.status,
      basis: "exit",
      durationMs,
      journalPath: "/j",
      ...(r.stopReason !== undefined && { stopReason: r.stopReason }),
      ...(r.costUsd !== undefined && {
        spend: { costUsd: r.costUsd, tokens: 1000, unpricedIterations: 0 },
        spendBasis: "harness" as const,
      }),
    });
    return runId;
  });
}
