// A schedule's past runs written into a state dir's ledger through the ledger itself (its real
// files, as the daemon writes them), each at its own instant: weeks of history in a moment.
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import type { SpendBasis, TerminalStatus } from "../../src/scheduler/ledger/run-outcome.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";

export interface PastRun {
  schedule: string;
  /** When it was launched (or its slot skipped). */
  at: Date;
  /** "running": launched and not ended. */
  status: TerminalStatus | "skipped" | "running";
  durationMs?: number;
  costUsd?: number;
  stopReason?: string;
  exitCode?: number;
  /** The ceiling its budget gave it, and where its spend came from (default the harness's). */
  ceilingUsd?: number;
  spendBasis?: SpendBasis;
}

export function seedHistory(stateDir: string, runs: readonly PastRun[]): void {
  let now = new Date(0);
  const ledger = RunLedger.open(stateDir, { now: () => now });
  for (const r of [...runs].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    now = r.at;
    const runId = newScheduledRunId(r.schedule, r.at);
    const slot = { runId, schedule: r.schedule, slot: r.at, trigger: "cron" as const };
    if (r.status === "skipped") {
      ledger.skip({ ...slot, cause: "overlap", detail: "the previous run was still going" });
      continue;
    }
    const ceiling = r.ceilingUsd === undefined ? {} : { budgetUsd: r.ceilingUsd };
    ledger.schedule({ ...slot, kind: "preset", argv: ["autoloop"], cwd: stateDir, ...ceiling });
    ledger.started(runId, { pid: 1, outputPath: "", journalPath: "", journalOffset: 0 });
    if (r.status === "running") continue;
    now = new Date(r.at.getTime() + (r.durationMs ?? 1000));
    ledger.finished(runId, {
      status: r.status,
      basis: "exit",
      durationMs: r.durationMs ?? 1000,
      journalPath: "",
      ...(r.stopReason !== undefined && { stopReason: r.stopReason }),
      ...(r.exitCode !== undefined && { exitCode: r.exitCode }),
      ...(r.costUsd !== undefined && {
        spend: {
          costUsd: r.costUsd,
          tokens: Math.round(r.costUsd * 200_000),
          unpricedIterations: 0,
        },
        spendBasis: r.spendBasis ?? "harness",
      }),
    });
  }
}
