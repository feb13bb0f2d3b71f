// A schedule's recent runs as a scheduled run may read them (`autoloop runs list|replay`, the
// event tool): a copy handed over at launch (AUTOLOOP_CRON_RUNS_FILE), so the run reads its
// schedule's ledger without being told where the daemon's state dir is.
import { readFileSync } from "node:fs";
import type { LedgerEvent, RunSummary, StartedEvent } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";

/** How many of the schedule's newest runs the copy holds. */
export const SNAPSHOT_RUNS = 50;

export interface RunsSnapshot {
  schedule: string;
  runs: { summary: RunSummary; journalPath?: string; journalOffset?: number }[];
}

export function runsSnapshot(
  ledger: Pick<RunLedger, "listRuns" | "replay">,
  schedule: string,
): RunsSnapshot {
  const runs = ledger.listRuns({ schedule, limit: SNAPSHOT_RUNS }).map((summary) => {
    const started = ledger
      .replay(summary.runId)
      ?.events.find((e): e is StartedEvent => e.event === "started");
    return started === undefined
      ? { summary }
      : { summary, journalPath: started.journalPath, journalOffset: started.journalOffset };
  });
  return { schedule, runs };
}

export function readRunsSnapshot(file: string): RunsSnapshot {
  return JSON.parse(readFileSync(file, "utf8")) as RunsSnapshot;
}

/**
 * The copy as much of the ledger as `runStory` reads: a run's summary and its start (journal
 * and offset); the daemon's own paths are not in it.
 */
export function snapshotLedger(snapshot: RunsSnapshot): {
  listRuns(query: { limit?: number }): RunSummary[];
  replay(runId: string): { events: LedgerEvent[]; summary: RunSummary } | undefined;
} {
  return {
    listRuns: ({ limit }) => snapshot.runs.map((r) => r.summary).slice(0, limit),
    replay: (runId) => {
      const run = snapshot.runs.find((r) => r.summary.runId === runId);
      if (run === undefined) return undefined;
      const started =
        run.journalPath === undefined
          ? []
          : [
              {
                event: "started",
                runId,
                journalPath: run.journalPath,
                journalOffset: run.journalOffset ?? 0,
              } as unknown as LedgerEvent,
            ];
      return { events: started, summary: run.summary };
    },
  };
}
