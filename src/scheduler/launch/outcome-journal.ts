// Finds a run's terminal record in the shared project journal, reading only what was appended since launch.
import { statSync } from "node:fs";
import { join } from "node:path";
import { fieldNumber, fieldText, type JournalRecord } from "../../journal/codec.js";
import { readJournal } from "../../journal/reader.js";
import { chainStatusOf } from "../../journal/stop-reasons.js";
import type { RunSpend, TerminalRecord } from "./outcome.js";

/** Where the harness journals when started in `cwd` (docs/formats.md, run-scoped isolation). */
export function journalPathFor(cwd: string): string {
  return join(cwd, ".autoloop", "journal.jsonl");
}

/** The journal's size now (0 when missing): the offset from which a new run's records start. */
export function journalSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The spend a terminal record states (`cost_usd`, `total_tokens`, `unpriced_iterations`). */
export function spendOf(record: JournalRecord): RunSpend | undefined {
  const costUsd = fieldNumber(record, "cost_usd");
  const tokens = fieldNumber(record, "total_tokens");
  if (costUsd === undefined || tokens === undefined) return undefined;
  return { costUsd, tokens, unpricedIterations: fieldNumber(record, "unpriced_iterations") ?? 0 };
}

/** The terminal record of `runId` among `records`, if any (the last one wins). */
export function terminalOf(
  records: readonly JournalRecord[],
  runId: string,
): TerminalRecord | undefined {
  let found: TerminalRecord | undefined;
  for (const record of records) {
    if (record.run !== runId || record.shape !== "system") continue;
    if (record.topic === "loop.complete" || record.topic === "loop.stop") {
      found = { topic: record.topic, reason: fieldText(record, "reason") };
      const spend = spendOf(record);
      if (spend !== undefined) found.spend = spend;
    }
    // A chain's end: completed, or stopped by the step that failed (its reason, e.g. step_failed).
    else if (record.topic === "chain.complete") {
      const status = chainStatusOf(record);
      found =
        status === "completed"
          ? { topic: "loop.complete", reason: "chain_completed" }
          : {
              topic: "loop.stop",
              reason: status === "interrupted" ? "interrupted" : fieldText(record, "reason"),
            };
    }
  }
  return found;
}

/**
 * Reads the journal from `offset` and returns the run's terminal record. The torn tail is
 * included: the harness has exited by the time we ask, so no more bytes are coming.
 */
export function readTerminal(path: string, runId: string, offset = 0): TerminalRecord | undefined {
  return terminalOf(readJournal(path, offset).items, runId);
}
