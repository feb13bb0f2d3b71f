// `pending.json`: runs not yet terminal, so a restarted daemon can adopt or close them (docs/formats.md).

import { readFileSync, statSync } from "node:fs";
import type { RunKind, ScheduledEvent, StartedEvent, Trigger } from "./events.js";

export interface PendingEntry {
  runId: string;
  schedule: string;
  slot: string;
  key: string;
  kind: RunKind;
  trigger: Trigger;
  cwd: string;
  scheduledAt: string;
  timeoutMs?: number;
  /** Absent until the launcher spawned the harness: a pid-less entry never started or was lost. */
  pid?: number;
  startTime?: string;
  startedAt?: string;
  journalOffset?: number;
  outputPath?: string;
}

/** A pending run as its `scheduled` event describes it. */
export function pendingFromScheduled(
  e: Pick<
    ScheduledEvent,
    "runId" | "schedule" | "slot" | "key" | "kind" | "trigger" | "cwd" | "timeoutMs"
  >,
  scheduledAt: string,
): PendingEntry {
  const { runId, schedule, slot, key, kind, trigger, cwd, timeoutMs } = e;
  const entry: PendingEntry = { runId, schedule, slot, key, kind, trigger, cwd, scheduledAt };
  if (timeoutMs !== undefined) entry.timeoutMs = timeoutMs;
  return entry;
}

/** The entry once its process was spawned, with what the `started` event records. */
export function withStart(
  entry: PendingEntry,
  started: Pick<StartedEvent, "pid" | "startTime" | "journalOffset" | "outputPath">,
  startedAt: string,
): PendingEntry {
  const { pid, startTime, journalOffset, outputPath } = started;
  return { ...entry, pid, startTime, startedAt, journalOffset, outputPath };
}

/** Reads pending.json; a missing or unreadable file means no pending runs (logged by the caller). */
export function loadPending(path: string): PendingEntry[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value))
    throw new Error(`${path}: found ${typeof value}; expected a JSON array`);
  return value.filter(
    (e): e is PendingEntry =>
      typeof e === "object" && e !== null && typeof (e as PendingEntry).runId === "string",
  );
}

/** When pending.json was last written (ms since the epoch); undefined when there is none. */
export function pendingWrittenAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** One entry per line keeps the file diffable and readable with `cat`. */
export function encodePending(entries: Iterable<PendingEntry>): string {
  const lines = [...entries].map((e) => `  ${JSON.stringify(e)}`);
  return lines.length === 0 ? "[]\n" : `[\n${lines.join(",\n")}\n]\n`;
}

/** The pending list in memory; every change is handed to `save` (an atomic rewrite). */
export class PendingList {
  private readonly entries = new Map<string, PendingEntry>();

  constructor(
    initial: readonly PendingEntry[],
    private readonly save: (text: string) => void,
  ) {
    for (const entry of initial) this.entries.set(entry.runId, entry);
  }

  get(runId: string): PendingEntry | undefined {
    return this.entries.get(runId);
  }

  all(): PendingEntry[] {
    return [...this.entries.values()];
  }

  set(entry: PendingEntry): void {
    this.entries.set(entry.runId, entry);
    this.save(encodePending(this.entries.values()));
  }

  drop(runId: string): void {
    if (this.entries.delete(runId)) this.save(encodePending(this.entries.values()));
  }

  /** Writes the list again as it is (after writes that failed). */
  rewrite(): void {
    this.save(encodePending(this.entries.values()));
  }
}
