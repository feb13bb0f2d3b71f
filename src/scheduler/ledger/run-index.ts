// `runs/index.jsonl`: run id → date folder (and schedule), loaded once so lookups never scan folders.
import { LineCursor, parseLines } from "../../journal/reader.js";
import { isScheduledRunId } from "./scheduled-run-id.js";

export interface IndexEntry {
  runId: string;
  /** `YYYY-MM-DD` (UTC) of the slot: the folder holding the run's event log. */
  date: string;
  schedule: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses one index line; ids and dates are validated because they become path segments. */
export function decodeIndexEntry(line: string): IndexEntry | undefined {
  try {
    const v = JSON.parse(line) as Partial<IndexEntry>;
    if (typeof v.runId !== "string" || !isScheduledRunId(v.runId)) return undefined;
    if (typeof v.date !== "string" || !DATE.test(v.date)) return undefined;
    return { runId: v.runId, date: v.date, schedule: String(v.schedule ?? "") };
  } catch {
    return undefined;
  }
}

export function encodeIndexEntry(entry: IndexEntry): string {
  return JSON.stringify({ runId: entry.runId, date: entry.date, schedule: entry.schedule });
}

/** The index in memory, in creation order, and per schedule (queries run per schedule). */
export class RunIndex {
  private readonly entries: IndexEntry[] = [];
  private readonly bySchedule = new Map<string, string[]>();
  private readonly dates = new Map<string, string>();

  static load(path: string): RunIndex {
    const index = new RunIndex();
    const lines = new LineCursor(path).readNew();
    for (const entry of parseLines(lines, decodeIndexEntry).items) index.add(entry);
    return index;
  }

  add(entry: IndexEntry): void {
    if (!this.dates.has(entry.runId)) {
      this.entries.push(entry);
      const ids = this.bySchedule.get(entry.schedule);
      if (ids === undefined) this.bySchedule.set(entry.schedule, [entry.runId]);
      else ids.push(entry.runId);
    }
    this.dates.set(entry.runId, entry.date);
  }

  dateOf(runId: string): string | undefined {
    return this.dates.get(runId);
  }

  /** Schedules with at least one run or skipped slot. */
  schedules(): Iterable<string> {
    return this.bySchedule.keys();
  }

  /** Run ids newest first, optionally of one schedule. */
  *newestFirst(schedule?: string): Generator<string> {
    if (schedule !== undefined) {
      const ids = this.bySchedule.get(schedule) ?? [];
      for (let i = ids.length - 1; i >= 0; i--) yield ids[i]!;
      return;
    }
    for (let i = this.entries.length - 1; i >= 0; i--) yield this.entries[i]!.runId;
  }
}
