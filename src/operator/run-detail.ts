// One run as the status page shows it: launch metadata, outcome, tasks, its iterations, the
// tail of its journal and of its output log.

import { closeSync, fstatSync, readSync } from "node:fs";
import { join } from "node:path";
import { type PendingQuestion, questionState } from "../harness/control/operator-requests.js";
import type { TasksFileEntry } from "../harness/tasks/entry.js";
import { materialize, type TaskView } from "../harness/tasks/materialize.js";
import { TaskStore } from "../harness/tasks/store.js";
import { decodeRecord, encodeRecord, fieldText, type JournalRecord } from "../journal/codec.js";
import { FileTooLargeError } from "../journal/reader.js";
import type {
  LedgerEvent,
  RunSummary,
  ScheduledEvent,
  StartedEvent,
} from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import { fileTail } from "../util/read-tail.js";
import { processRedactor, type Redactor, redactStrings } from "../util/secrets.js";
import { openRegularFile, UntrustedFileError } from "../util/untrusted-file.js";
import { type RunIterations, runIterations } from "./run-iterations.js";

export interface JournalLine {
  ts: string;
  run: string;
  iteration?: string;
  topic: string;
  text: string;
}

export interface RunDetail {
  summary: RunSummary;
  events: LedgerEvent[];
  launch?: Pick<ScheduledEvent, "argv" | "cwd" | "trigger" | "kind" | "timeoutMs">;
  started?: Pick<StartedEvent, "pid" | "outputPath" | "journalPath">;
  /** The run's tasks file (`<project>/.autoloop/runs/<run-id>/tasks.jsonl`), when it has one. */
  tasks?: TaskView;
  /** `truncated`: the run's records go on past the bytes a page reads (RUN_SCAN_BYTES). */
  journal: { lines: JournalLine[]; omitted: number; truncated?: boolean };
  /** The run's iterations, from its journal and tasks file. */
  iterations: RunIterations;
  output?: { path: string; text: string; omittedBytes: number };
  /** The question the run waits on, while it runs. */
  question?: PendingQuestion;
  /** The run's files that could not be read (the run writes them: it may leave anything). */
  unreadable: UnreadableFile[];
}

export interface UnreadableFile {
  file: "tasks" | "journal" | "output";
  /** Why, in a few words: "not a regular file", "over 64 MiB". */
  why: string;
}

/** Why a run's file could not be read, in the words the page shows. */
function whyUnreadable(err: unknown): string {
  if (err instanceof UntrustedFileError)
    return err.why === "link" ? "a symbolic link" : "not a regular file";
  if (err instanceof FileTooLargeError) return `over ${Math.round(err.max / (1 << 20))} MiB`;
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** A record in one line: an agent's payload, or a system record's fields. */
export function recordText(r: JournalRecord): string {
  if (r.shape === "agent") return r.payload;
  const parts = Object.keys(r.fields).map((k) => `${k}=${fieldText(r, k)}`);
  return parts.join(" ");
}

/** A run's journal is shared with its project's other runs: a page reads at most this much. */
export const RUN_SCAN_BYTES = 32 << 20;
const SCAN_CHUNK = 1 << 20;
const RUN_END = new Set(["loop.complete", "loop.stop", "chain.complete"]);

/**
 * Records of the run itself and, for a chain, of its steps (`<run>-step-N`), read from the
 * run's start offset until the run's own end record, or `maxBytes` (`truncated` then): a
 * busy project journal is not read to its end for an old run. None when there is no journal;
 * an `UntrustedFileError` for a FIFO or a link in its place.
 */
export function runRecords(
  journalPath: string,
  runId: string,
  offset = 0,
  maxBytes = RUN_SCAN_BYTES,
): { records: JournalRecord[]; truncated: boolean } {
  const steps = `${runId}-step-`;
  const ours = (run: string) =>
    run === runId || (run.startsWith(steps) && /^\d+$/.test(run.slice(steps.length)));
  const records: JournalRecord[] = [];
  const opened = openRegularFile(journalPath);
  if (opened === undefined) return { records, truncated: false };
  const fd = opened.fd;
  try {
    const end = Math.min(opened.stat.size, offset + maxBytes);
    let position = offset;
    let rest = "";
    const buf = Buffer.allocUnsafe(SCAN_CHUNK);
    while (position < end) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, end - position), position);
      if (n <= 0) break;
      position += n;
      const lines = (rest + buf.toString("utf8", 0, n)).split("\n");
      rest = position < end ? lines.pop()! : "";
      for (const line of lines) {
        if (!line.includes(runId)) continue;
        const r = decodeRecord(line);
        if (r === undefined || !ours(r.run)) continue;
        records.push(r);
        if (r.run === runId && RUN_END.has(r.topic)) return { records, truncated: false };
      }
    }
    return { records, truncated: end < fstatSync(fd).size && position >= offset + maxBytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * The run's own records as JSON lines (the journal's byte style), redacted, for its page's
 * download: read as the page reads them, from the run's start, at most RUN_SCAN_BYTES.
 * Undefined for a run not in the ledger or not started; an error when its journal cannot
 * be read (a FIFO or a link in its place).
 */
export function runJournal(
  ledger: Pick<RunLedger, "replay">,
  runId: string,
  redactor: Redactor = processRedactor,
): { text: string; truncated: boolean } | undefined {
  const started = ledger
    .replay(runId)
    ?.events.find((e): e is StartedEvent => e.event === "started");
  if (started === undefined) return undefined;
  const { records, truncated } = runRecords(started.journalPath, runId, started.journalOffset);
  const text = redactStrings(records, redactor)
    .map((r) => `${encodeRecord(r)}\n`)
    .join("");
  return { text, truncated };
}

/**
 * The run as its page and MCP show it, its text redacted: the run wrote its tasks, journal
 * and output, and could have written its keys there past the event tool's redaction.
 */
export function runDetail(
  ledger: Pick<RunLedger, "replay">,
  runId: string,
  options: { journalLines?: number; outputBytes?: number; redactor?: Redactor } = {},
): RunDetail | undefined {
  const redactor = options.redactor ?? processRedactor;
  const detail = rawRunDetail(ledger, runId, { ...options, redactor });
  return detail && redactStrings(detail, redactor);
}

function rawRunDetail(
  ledger: Pick<RunLedger, "replay">,
  runId: string,
  options: { journalLines?: number; outputBytes?: number; redactor: Redactor },
): RunDetail | undefined {
  const found = ledger.replay(runId);
  if (found === undefined) return undefined;
  const detail: RunDetail = {
    summary: found.summary,
    events: found.events,
    journal: { lines: [], omitted: 0 },
    iterations: { steps: [], omitted: 0 },
    unreadable: [],
  };
  const unreadable = (file: UnreadableFile["file"], err: unknown) =>
    detail.unreadable.push({ file, why: whyUnreadable(err) });
  const scheduled = found.events.find((e): e is ScheduledEvent => e.event === "scheduled");
  const started = found.events.find((e): e is StartedEvent => e.event === "started");
  let taskEntries: TasksFileEntry[] = [];
  if (scheduled !== undefined) {
    const { argv, cwd, trigger, kind, timeoutMs } = scheduled;
    detail.launch = { argv, cwd, trigger, kind, ...(timeoutMs !== undefined && { timeoutMs }) };
    try {
      taskEntries = new TaskStore(join(cwd, ".autoloop", "runs", runId, "tasks.jsonl")).entries();
      const tasks = materialize(taskEntries);
      if (tasks.open.length + tasks.done.length > 0) detail.tasks = tasks;
    } catch (err) {
      unreadable("tasks", err);
    }
  }
  if (started !== undefined) {
    const { pid, outputPath, journalPath } = started;
    detail.started = { pid, outputPath, journalPath };
    try {
      const { records, truncated } = runRecords(journalPath, runId, started.journalOffset);
      const { pending } = questionState(records, runId);
      if (pending !== undefined && found.summary.status === "running") detail.question = pending;
      detail.iterations = runIterations(runId, records, {
        taskEntries,
        redact: (text) => options.redactor.redact(text),
      });
      const keep = options.journalLines ?? 50;
      const tail = keep > 0 ? records.slice(-keep) : [];
      detail.journal = {
        truncated,
        omitted: records.length - tail.length,
        lines: tail.map((r) => ({
          ts: r.ts,
          run: r.run,
          ...(r.iteration !== undefined && r.iteration !== "" && { iteration: r.iteration }),
          topic: r.topic,
          text: recordText(r),
        })),
      };
    } catch (err) {
      unreadable("journal", err);
    }
    try {
      const tail = fileTail(outputPath, options.outputBytes ?? 16_384);
      if (tail !== undefined) detail.output = { path: outputPath, ...tail };
    } catch (err) {
      unreadable("output", err);
    }
  }
  return detail;
}
