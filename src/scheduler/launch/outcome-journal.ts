// Finds a run's terminal record in the shared project journal, reading only what was appended since launch.
import { statSync } from "node:fs";
import { join } from "node:path";
import { fieldNumber, fieldText, type JournalRecord } from "../../journal/codec.js";
import { readJournal } from "../../journal/reader.js";
import { retryAfterInstant } from "../../journal/retry-after.js";
import { chainStatusOf, stopReasonWord } from "../../journal/stop-reasons.js";
import { plausibleTokens, plausibleUsd, type RunSpend } from "../ledger/run-outcome.js";
import type { TerminalRecord } from "./outcome.js";

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

/**
 * The spend a terminal record states (`cost_usd`, `total_tokens`, `unpriced_iterations`);
 * undefined when it states none, or a figure out of range (unknown, never 0).
 */
export function spendOf(record: JournalRecord): RunSpend | undefined {
  const costUsd = plausibleUsd(fieldNumber(record, "cost_usd"));
  const tokens = plausibleTokens(fieldNumber(record, "total_tokens"));
  if (costUsd === undefined || tokens === undefined) return undefined;
  return { costUsd, tokens, unpricedIterations: fieldNumber(record, "unpriced_iterations") ?? 0 };
}

/** The record's stop reason, as a word: the daemon prints, posts and stores it. */
const reasonOf = (record: JournalRecord) => stopReasonWord(fieldText(record, "reason"));

/**
 * A run's end as its journal tells it, read in one chunk or many: its terminal record (the
 * last one wins) and what it spent: the terminal record's figures, else the sum of the run's
 * `backend.usage` records (a run killed mid-way spent too, and a budget must count it).
 */
export class RunEndScan {
  terminal: TerminalRecord | undefined;
  private usage: RunSpend | undefined;
  /** A usage record without a believable token count: the run's spend is unknown. */
  private usageUnknown = false;
  private readonly byModel: NonNullable<RunSpend["byModel"]> = {};

  constructor(private readonly runId: string) {}

  add(records: readonly JournalRecord[]): this {
    for (const record of records) {
      if (record.run !== this.runId || record.shape !== "system") continue;
      if (record.topic === "backend.usage") this.addUsage(record);
      else if (record.topic === "loop.complete" || record.topic === "loop.stop") {
        this.terminal = { topic: record.topic, reason: reasonOf(record) };
        const spend = spendOf(record);
        if (spend !== undefined) this.terminal.spend = spend;
        const retryAt = retryAfterInstant(fieldText(record, "retry_after"), Date.parse(record.ts));
        if (retryAt !== undefined) this.terminal.retryAfter = new Date(retryAt).toISOString();
      }
      // A chain's end: completed, or stopped by the step that failed (its reason, e.g. step_failed).
      else if (record.topic === "chain.complete") {
        const status = chainStatusOf(record);
        this.terminal =
          status === "completed"
            ? { topic: "loop.complete", reason: "chain_completed" }
            : {
                topic: "loop.stop",
                reason: status === "interrupted" ? "interrupted" : reasonOf(record),
              };
      }
    }
    return this;
  }

  /** What the run spent; undefined when its journal says nothing of it, or nothing believable. */
  spend(): RunSpend | undefined {
    const usage = this.usageUnknown ? undefined : this.usage;
    const spend = this.terminal?.spend ?? usage;
    if (spend === undefined || Object.keys(this.byModel).length === 0) return spend;
    return { ...spend, byModel: this.byModel };
  }

  private addUsage(record: JournalRecord): void {
    const cost = plausibleUsd(fieldNumber(record, "cost_usd"));
    const reported = plausibleTokens(fieldNumber(record, "total_tokens"));
    if (reported === undefined) this.usageUnknown = true;
    const tokens = reported ?? 0;
    const u = this.usage ?? { costUsd: 0, tokens: 0, unpricedIterations: 0 };
    this.usage = {
      costUsd: u.costUsd + (cost ?? 0),
      tokens: u.tokens + tokens,
      unpricedIterations: u.unpricedIterations + (cost === undefined ? 1 : 0),
    };
    if (plausibleUsd(this.usage.costUsd) === undefined) this.usageUnknown = true;
    if (plausibleTokens(this.usage.tokens) === undefined) this.usageUnknown = true;
    const model = fieldText(record, "model") || "unknown";
    const m = this.byModel[model] ?? { costUsd: 0, tokens: 0 };
    this.byModel[model] = { costUsd: m.costUsd + (cost ?? 0), tokens: m.tokens + tokens };
  }
}

/**
 * Reads the journal from `offset` for the run's end. The torn tail is included: the harness
 * has exited by the time we ask, so no more bytes are coming.
 */
export function readRunEnd(path: string, runId: string, offset = 0): RunEndScan {
  return new RunEndScan(runId).add(readJournal(path, offset).items);
}

/**
 * `readRunEnd`, or undefined when the journal cannot be read (a FIFO or a link in its place, a
 * file past its limits: the run wrote it), told to `report`; the end then comes from the exit.
 */
export function readRunEndOr(
  path: string,
  runId: string,
  offset: number,
  report: (problem: string) => void,
): RunEndScan | undefined {
  try {
    return readRunEnd(path, runId, offset);
  } catch (err) {
    report((err as Error).message);
    return undefined;
  }
}

/** The log line for a run's journal that could not be read. */
export const UNREADABLE_JOURNAL =
  "the run's journal was not read; its end is decided from its exit";
