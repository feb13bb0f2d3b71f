// The issues' follow-ups: when a run that took issues ended (and its pull request, if it
// delivers one, was made or given up on), each issue gets a comment saying how it went and
// loses its working mark: finished, or given back to be taken again. The queue is the runs'
// take files (tracker/run-issues.ts), each step recorded before the next, so `kill -9` at any
// point repeats at most one comment; failed calls are retried with the outbox's backoff, and
// one the tracker refuses (issue-followup-failure.ts) is given up at once and paged.
import { type AlertLogger, silentLogger } from "../monitor/channels/delivery.js";
import { backoffDelay, DEFAULT_BACKOFF } from "../monitor/outbox/backoff.js";
import { writeUntoldIssues } from "../monitor/outbox/untold-issues.js";
import { OutboxWorker, type WorkerTimers } from "../monitor/outbox/worker.js";
import { claimFilePath, claimOwner } from "../scheduler/ledger/claim-files.js";
import { TRACKER_CLIENTS, type TrackerClient } from "../tracker/clients.js";
import { endComment, finishesIssue } from "../tracker/issue-text.js";
import {
  type IssueEnd,
  listRunIssues,
  type RunIssues,
  removeRunIssues,
  writeRunIssues,
} from "../tracker/run-issues.js";
import { dropIssueClaim } from "../tracker/take.js";
import { markedComment, type TrackerKind } from "../tracker/tracker.js";
import { formatDuration } from "../util/duration.js";
import { processRedactor, resolveSecret } from "../util/secrets.js";
import { followUpFailure, untoldIssues } from "./issue-followup-failure.js";
import { tickDoneBoxes } from "./issue-task-ticks.js";
import type { DeliveryResult } from "./record.js";

/** How a run stands in the ledger, for a take file whose run's end was not heard of. */
export type LedgerRun = { status: string; stopReason?: string | undefined } | undefined;

export interface IssueFollowUpOptions {
  stateDir: string;
  now?: () => number;
  random?: () => number;
  timers?: WorkerTimers;
  logger?: AlertLogger;
  /** How the run's pull request delivery stands (the delivery queue's word). */
  pullRequestOf?: (runId: string) => DeliveryResult | undefined;
  runInLedger: (runId: string) => LedgerRun;
  runUrl?: ((runId: string) => string | undefined) | undefined;
  env?: NodeJS.ProcessEnv;
  trackers?: Partial<Record<TrackerKind, TrackerClient>>;
  /** Failing for longer than this gives the follow-up up (default 24 h). */
  maxAgeMs?: number;
}

/** A take whose run the ledger does not know after this long never started. */
const UNSTARTED_AFTER_MS = 120_000;
/** How often a take without an end is looked up in the ledger, or a pull request awaited. */
const LOOK_AGAIN_MS = 5_000;

const ENDED = new Set(["completed", "failed", "timed_out", "interrupted", "killed", "skipped"]);

/** A run's end from its ledger status, when it ended unheard (a restart, a failed spawn). */
export function endFromLedger(run: LedgerRun, takenAgoMs: number): IssueEnd | undefined {
  if (run === undefined)
    return takenAgoMs > UNSTARTED_AFTER_MS
      ? { kind: "not_started", why: "its slot was not launched from this state dir" }
      : undefined;
  if (!ENDED.has(run.status)) return undefined;
  if (run.status === "completed") return { kind: "completed" };
  if (run.status === "skipped") return { kind: "not_started", why: "its slot was skipped" };
  return {
    kind: "failed",
    status: run.status,
    ...(run.stopReason !== undefined && { detail: run.stopReason }),
  };
}

/** A completed run's end once its pull request was made or given up on; undefined: not yet. */
export function endAfterDelivery(result: DeliveryResult | undefined): IssueEnd | undefined {
  if (result === undefined || result.kind === "pending") return undefined;
  if (result.kind === "delivered") return { kind: "completed", pullRequest: result.url };
  const giveBack = true;
  if (result.kind === "superseded")
    return {
      kind: "completed",
      giveBack,
      note: `a later run (${result.by}) took its pull request`,
    };
  return {
    kind: "completed",
    giveBack,
    note: `its pull request could not be made: ${result.error}`,
  };
}

export class IssueFollowUps {
  private readonly busy = new Set<string>();
  /** Completed runs whose delivery is being decided: the ledger's "completed" is not their end. */
  private readonly deciding = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly worker: OutboxWorker;
  private readonly now: () => number;
  private readonly log: AlertLogger;

  constructor(private readonly options: IssueFollowUpOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silentLogger;
    this.worker = new OutboxWorker(this, this.now, options.timers, this.log);
  }

  /** The run completed and what it delivers is being decided: its end is `ended`'s word. */
  decidingDelivery(runId: string): void {
    this.deciding.add(runId);
  }

  /** The run ended: `end`, or `awaiting` its pull request. No-op for a run that took no issue. */
  ended(runId: string, entry: RunIssues | undefined, end: IssueEnd | "awaiting"): void {
    this.deciding.delete(runId);
    if (entry === undefined || entry.end !== undefined || this.busy.has(runId)) return;
    const at = new Date(this.now()).toISOString();
    if (end === "awaiting") entry.awaiting = true;
    else Object.assign(entry, { end, endedAt: at });
    entry.nextAt = at;
    writeRunIssues(this.options.stateDir, entry);
    this.notify();
  }

  async deliverDue(now = this.now()): Promise<void> {
    const due = listRunIssues(this.options.stateDir).filter(
      (e) => !this.busy.has(e.runId) && Date.parse(e.nextAt ?? e.takenAt) <= now,
    );
    await Promise.all(due.map((e) => this.attempt(e, now)));
  }

  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const e of listRunIssues(this.options.stateDir)) {
      // One in flight is due again once its attempt has said when (a due time past would spin).
      if (this.busy.has(e.runId)) continue;
      const at = Date.parse(e.nextAt ?? e.takenAt);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  onActivity(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.worker.start();
  }

  async close(): Promise<void> {
    await this.worker.stop();
  }

  /** Pokes the worker (a pull request was delivered: its issues can be told now). */
  notify(): void {
    for (const listener of this.listeners) listener();
  }

  private async attempt(entry: RunIssues, now: number): Promise<void> {
    const later = (ms: number) => {
      entry.nextAt = new Date(now + ms).toISOString();
      writeRunIssues(this.options.stateDir, entry);
    };
    // A run another daemon over this state dir claimed is that daemon's to follow up.
    if (this.othersRun(entry)) return later(LOOK_AGAIN_MS);
    let end = entry.end;
    if (end === undefined) {
      // Held in memory only: after a restart the ledger's word is taken, as before.
      if (this.deciding.has(entry.runId)) return later(LOOK_AGAIN_MS);
      end = entry.awaiting
        ? endAfterDelivery(this.options.pullRequestOf?.(entry.runId))
        : endFromLedger(this.options.runInLedger(entry.runId), now - Date.parse(entry.takenAt));
      if (end === undefined) return later(LOOK_AGAIN_MS);
      Object.assign(entry, { end, endedAt: new Date(now).toISOString() });
      writeRunIssues(this.options.stateDir, entry);
    }
    this.busy.add(entry.runId);
    try {
      await this.tell(entry, end);
      removeRunIssues(this.options.stateDir, entry.runId);
      this.log.info({ run: entry.runId, issues: entry.issues.map((i) => i.ref) }, "issues told");
    } catch (err) {
      this.failed(entry, err, now, later);
    } finally {
      this.busy.delete(entry.runId);
    }
  }

  private othersRun(entry: RunIssues): boolean {
    if (entry.slotKey === undefined || this.options.runInLedger(entry.runId) !== undefined)
      return false;
    return claimOwner(claimFilePath(this.options.stateDir, entry.slotKey)) === entry.runId;
  }

  /**
   * Ticks the boxes of the run's done tasks (task sync), then comments on each issue and drops
   * its working mark; each step recorded once done.
   */
  private async tell(entry: RunIssues, end: IssueEnd): Promise<void> {
    const { source, runId } = entry;
    const label = `schedule "${entry.schedule}": source ${source.kind}_issues token`;
    const token = resolveSecret(source.token, label, {
      ...(this.options.env && { env: this.options.env }),
    });
    const client = this.options.trackers?.[source.kind] ?? (await TRACKER_CLIENTS[source.kind]());
    const tracker = client({ source, token });
    const save = () => writeRunIssues(this.options.stateDir, entry);
    if (entry.taskSync !== undefined)
      await tickDoneBoxes(entry, entry.taskSync, tracker, save, this.log);
    const text = processRedactor.redact(endComment(end, runId, this.options.runUrl?.(runId)));
    for (const issue of entry.issues) {
      if (!entry.commented.includes(issue.id)) {
        await tracker.comment(issue.id, markedComment("release", runId, text));
        entry.commented.push(issue.id);
        writeRunIssues(this.options.stateDir, entry);
      }
      if (!entry.released.includes(issue.id)) {
        await tracker.release(issue.id, finishesIssue(end));
        dropIssueClaim(this.options.stateDir, source, issue.id);
        entry.released.push(issue.id);
        writeRunIssues(this.options.stateDir, entry);
      }
    }
  }

  private failed(entry: RunIssues, err: unknown, now: number, later: (ms: number) => void): void {
    const error = processRedactor.redact(String((err as Error)?.message ?? err));
    entry.failures += 1;
    entry.lastError = error;
    const age = now - Date.parse(entry.endedAt ?? entry.takenAt);
    const fields = { run: entry.runId, issues: entry.issues.map((i) => i.ref), error };
    const failure = followUpFailure(err);
    if (failure.kind === "retry" && age < (this.options.maxAgeMs ?? 86_400_000)) {
      const random = this.options.random ?? Math.random;
      this.log.warn(fields, "issue follow-up failed; retrying");
      later(
        Math.max(backoffDelay(entry.failures, random, DEFAULT_BACKOFF), failure.retryAfterMs ?? 0),
      );
      return;
    }
    // The issues keep their working mark: the page (written before the record goes) says why.
    const untold = untoldIssues(entry, error, failure, now);
    writeUntoldIssues(this.options.stateDir, untold);
    removeRunIssues(this.options.stateDir, entry.runId);
    for (const issue of entry.issues) dropIssueClaim(this.options.stateDir, entry.source, issue.id);
    const after = failure.kind === "refused" ? "refused" : `failing for ${formatDuration(age)}`;
    const attempts = `${entry.failures} attempt${entry.failures === 1 ? "" : "s"}`;
    this.log.error(
      { ...fields, fix: untold.fix },
      `issue follow-up given up (${after}, ${attempts}): the monitor pages it`,
    );
  }
}
