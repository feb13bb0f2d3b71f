// Which of a run's `chain.spawn` requests its harness has not acted on yet: each one acted on
// left a `chain.spawn` (or `chain.spawn.refused`) record, in order, so the rest are pending
// (a run resumed, or one whose harness was killed between its completion and its spawns).
import type { JournalRecord } from "../../journal/codec.js";
import { readJournal } from "../../journal/reader.js";
import { SPAWN_TOPIC } from "../run-view.js";

/**
 * A run's requests from `offset` its harness has not acted on yet (each one acted on left a
 * `chain.spawn` or `chain.spawn.refused` record, in order), and the chains it spawned before.
 */
export function pendingSpawns(
  journalFile: string,
  runId: string,
  offset = 0,
): { requests: JournalRecord[]; spawnedBefore: number } {
  const mine = readJournal(journalFile, offset).items.filter((r) => r.run === runId);
  const requests = mine.filter((r) => r.topic === SPAWN_TOPIC && r.shape === "agent");
  const acted = mine.filter(
    (r) => r.shape === "system" && (r.topic === SPAWN_TOPIC || r.topic === "chain.spawn.refused"),
  );
  return {
    requests: requests.slice(acted.length),
    spawnedBefore: acted.filter((r) => r.topic === SPAWN_TOPIC).length,
  };
}
