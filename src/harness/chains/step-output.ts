// The last agent output of one run, read from the journal after `offset` (where it started).
import { fieldText } from "../../journal/codec.js";
import { readJournal } from "../../journal/reader.js";

/** At most this much of a step's last output is handed to the next step. */
export const HANDOFF_OUTPUT_CHARS = 4000;

export function lastOutputOf(journalFile: string, runId: string, offset: number): string {
  const last = readJournal(journalFile, offset)
    .items.filter((r) => r.run === runId && r.topic === "iteration.finish")
    .at(-1);
  const output = last === undefined ? "" : fieldText(last, "output");
  return output.length > HANDOFF_OUTPUT_CHARS ? output.slice(-HANDOFF_OUTPUT_CHARS) : output;
}
