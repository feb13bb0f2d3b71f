// Reading a test run's journal and registry.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fieldText, type JournalRecord } from "../../src/journal/codec.js";
import { readJournal } from "../../src/journal/reader.js";

export function journalOf(workDir: string): JournalRecord[] {
  return readJournal(join(workDir, ".autoloop/journal.jsonl")).items;
}

export function topics(records: JournalRecord[]): string[] {
  return records.map((r) => r.topic);
}

export function field(record: JournalRecord | undefined, name: string): string {
  return record === undefined ? "" : fieldText(record, name);
}

export function registryLines(workDir: string): Array<Record<string, unknown>> {
  return readFileSync(join(workDir, ".autoloop/registry.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
