// The scheduler's run ledger (docs/formats.md): per-run event logs by date, an index, pending runs and claimed slots.
import { hostname } from "node:os";
import { join } from "node:path";
import { HeldLines, type WriteTrouble } from "../../journal/held-lines.js";
import { LineCursor, parseLines } from "../../journal/reader.js";
import { claimFilePath, claimOwner } from "./claim-files.js";
import { type ClaimState, claimState, retakePath } from "./claim-retake.js";
import {
  applyEvent,
  decodeLedgerEvent,
  isTerminal,
  type LedgerEvent,
  type LedgerEventInput,
  type RunSummary,
  summarize,
} from "./events.js";
import {
  type ClaimResult,
  defaultLedgerDeps,
  type LedgerDeps,
  type PlannedRun,
  type SkippedRun,
  type SlotRun,
  type StartInfo,
} from "./inputs.js";
import { slotClaimFiles } from "./orphan-claims.js";
import {
  loadPending,
  type PendingEntry,
  PendingList,
  pendingFromScheduled,
  pendingWrittenAt,
  withStart,
} from "./pending.js";
import { encodeIndexEntry, RunIndex } from "./run-index.js";
import type { RunOutcome } from "./run-outcome.js";
import { isScheduledRunId } from "./scheduled-run-id.js";
import { attemptKey, encodeSlot, loadSlots, RepeatWindow, slotKey } from "./slots.js";

/**
 * How long before pending.json's last write a claim may have been made and still be missing
 * from it: the daemon's write of a turn's pending runs takes milliseconds; a minute is ample.
 */
const PENDING_LAG_MS = 60_000;

const UNREADABLE_CLAIM = "(a claim whose run id cannot be read)";

/** A slot whose claimer died before recording its run (see claim-retake.ts). */
export interface OrphanedSlot {
  schedule: string;
  slot: Date;
  /** The dead claimer's run id: it has no ledger line and never ran. */
  runId: string;
}

export class RunLedger {
  private readonly index: RunIndex;
  private readonly summaries = new Map<string, RunSummary>();
  private readonly pendingRuns: PendingList;
  private readonly slots: Map<string, string>;
  private readonly lines: HeldLines;
  private repeat: RepeatWindow | undefined;
  readonly slotsPath: string;
  readonly indexPath: string;
  readonly pendingPath: string;

  private constructor(
    readonly stateDir: string,
    private readonly deps: LedgerDeps,
  ) {
    this.slotsPath = join(stateDir, "slots.jsonl");
    this.indexPath = join(stateDir, "runs", "index.jsonl");
    this.pendingPath = join(stateDir, "pending.json");
    // Ledger I/O never fails a run: a line the disk refuses is held and written later.
    this.lines = new HeldLines((path, line) => deps.appendLine(path, line), {
      trouble: (t, dropped) =>
        deps.logger.error({ ...t, dropped }, "run ledger write failed; its lines are held"),
      recovered: (t) => {
        this.pendingRuns.rewrite();
        deps.logger.warn(t, "run ledger: the held lines are written");
      },
    });
    this.slots = this.tryRead("slots", () => loadSlots(this.slotsPath), new Map());
    this.index = this.tryRead("index", () => RunIndex.load(this.indexPath), new RunIndex());
    const pending = this.tryRead("pending", () => loadPending(this.pendingPath), []);
    this.pendingRuns = new PendingList(pending, (text) => {
      try {
        this.deps.writeAtomic(this.pendingPath, text);
      } catch (err) {
        // Written again with the held lines (retryHeld), or with the next change.
        this.deps.logger.error(
          { err, what: "pending" },
          "run ledger write failed; the run goes on",
        );
      }
    });
  }

  /** Opens the ledger under `stateDir`, rebuilding the slot set, index and pending list. */
  static open(stateDir: string, deps: Partial<LedgerDeps> = {}): RunLedger {
    return new RunLedger(stateDir, { ...defaultLedgerDeps(), ...deps });
  }

  /** The event log of a run; undefined for an unknown or malformed id (no path traversal). */
  runFilePath(runId: string): string | undefined {
    const date = this.index.dateOf(runId);
    if (date === undefined || !isScheduledRunId(runId)) return undefined;
    return join(this.stateDir, "runs", date, `${runId}.jsonl`);
  }

  /** Resolves once everything recorded so far is on disk (at once, or after a group commit). */
  durable(): Promise<void> {
    return this.deps.durable();
  }

  /** True when the slot was already launched or skipped (idempotency across restarts). */
  hasSlot(key: string): boolean {
    return this.slots.has(key);
  }

  /** The run that claimed `key`, if one did. */
  slotOwner(key: string): string | undefined {
    return this.slots.get(key);
  }

  /**
   * The run that claimed `key`: in this ledger, or by a claim file another process made;
   * undefined too when that claim is orphaned (this process's claim would retake it).
   */
  claimant(key: string): string | undefined {
    const known = this.slots.get(key);
    if (known !== undefined) return known;
    const path = claimFilePath(this.stateDir, key);
    const owner = claimOwner(path);
    if (owner === undefined) return undefined;
    const retaker = claimOwner(retakePath(path));
    if (retaker !== undefined) return retaker;
    return this.claimStateOf(path, owner).kind === "orphaned" ? undefined : owner;
  }

  /**
   * The slots whose claim files name a run no ledger line followed, older than the retake
   * policy's margin (`orphaned`: to be run or skipped under their key, which retakes them),
   * and when the youngest of the others can be judged (`next`, epoch ms). A claim retaken
   * already is left out, even when its retaker died in turn: a slot is retaken once.
   */
  orphanedSlots(): { orphaned: OrphanedSlot[]; next?: number } {
    const orphaned: OrphanedSlot[] = [];
    let next: number | undefined;
    if (this.deps.retake === undefined) return { orphaned };
    for (const { key, path, schedule, slot } of slotClaimFiles(this.stateDir)) {
      if (this.slots.has(key)) continue;
      const owner = this.tryRead("claims", () => claimOwner(path), undefined);
      if (owner === undefined || claimOwner(retakePath(path)) !== undefined) continue;
      const state = this.claimStateOf(path, owner);
      if (state.kind === "orphaned") orphaned.push({ schedule, slot, runId: owner });
      else if (state.kind === "young") next = Math.min(next ?? state.at, state.at);
    }
    return next === undefined ? { orphaned } : { orphaned, next };
  }

  /** Claims the slot and records the run as pending, before anything is spawned. */
  schedule(run: PlannedRun): ClaimResult {
    const claim = this.claim(run);
    if (claim.kind === "duplicate") return claim;
    const { runId, schedule, trigger, kind, argv, cwd, timeoutMs, budgetUsd, budgetTokens } = run;
    const { attempt, parentRunId, hookId, review } = run;
    const slot = run.slot.toISOString();
    const fields = { schedule, slot, key: claim.key, trigger, kind, argv, cwd, timeoutMs };
    this.append(runId, {
      event: "scheduled",
      ...fields,
      ...(budgetUsd !== undefined && { budgetUsd }),
      ...(budgetTokens !== undefined && { budgetTokens }),
      ...(attempt !== undefined && attempt > 1 && { attempt }),
      ...(parentRunId !== undefined && { parentRunId }),
      ...(hookId !== undefined && { hookId }),
      ...(review !== undefined && { review }),
    });
    const scheduledAt = this.deps.now().toISOString();
    this.pendingRuns.set(pendingFromScheduled({ runId, ...fields }, scheduledAt));
    return claim;
  }

  /** Records a slot that will not run; the slot counts as handled. */
  skip(run: SkippedRun): ClaimResult {
    const claim = this.claim(run);
    if (claim.kind === "duplicate") return claim;
    const { schedule, trigger, cause, detail, attempt, parentRunId } = run;
    const slot = run.slot.toISOString();
    this.append(run.runId, {
      event: "skipped",
      schedule,
      slot,
      key: claim.key,
      trigger,
      cause,
      detail,
      ...(attempt !== undefined && attempt > 1 && { attempt }),
      ...(parentRunId !== undefined && { parentRunId }),
    });
    return claim;
  }

  /** Call right after spawning: the pid in pending.json is what lets a restart adopt the run. */
  started(runId: string, info: StartInfo): void {
    this.append(runId, { event: "started", ...info, pgid: info.pid, host: hostname() });
    const entry = this.pendingRuns.get(runId);
    if (entry) this.pendingRuns.set(withStart(entry, info, this.deps.now().toISOString()));
  }

  adopted(runId: string, pid: number, startTime?: string): void {
    this.append(runId, { event: "adopted", pid });
    const entry = this.pendingRuns.get(runId);
    if (entry) this.pendingRuns.set({ ...entry, pid, startTime: startTime ?? entry.startTime });
  }

  killed(runId: string, by: string, reason: string): void {
    this.append(runId, { event: "killed", by, reason });
  }

  finished(runId: string, outcome: RunOutcome): void {
    // Two watchers of one run (a detached daemon and its successor) must not both end it:
    // read the run's log itself, since the other one may have written to it.
    const known = this.replay(runId)?.summary;
    if (known !== undefined && isTerminal(known.status)) return;
    const { status, basis, stopReason, exitCode, signal, durationMs, detail, spend } = outcome;
    const { retryAfter, spendBasis } = outcome;
    const fields = {
      ...{ status, basis, stopReason, exitCode, signal, durationMs, detail, retryAfter },
      ...(spend && { costUsd: spend.costUsd, tokens: spend.tokens }),
      ...(spend &&
        spend.unpricedIterations > 0 && { unpricedIterations: spend.unpricedIterations }),
      ...(spendBasis !== undefined && { spendBasis }),
    };
    this.append(runId, { event: "finished", ...fields });
    this.pendingRuns.drop(runId);
  }

  /** The run's commits went out as its schedule's pull request. */
  delivered(runId: string, url: string, action: "opened" | "updated"): void {
    this.append(runId, { event: "delivered", url, action });
  }

  interrupted(
    runId: string,
    reason: string,
    slot?: { schedule: string; slot: string; attempt?: number; parentRunId?: string },
  ): void {
    // A claim the index never heard of (crash between the two lines) is indexed now.
    if (slot !== undefined && this.index.dateOf(runId) === undefined)
      this.addToIndex(runId, slot.schedule, slot.slot);
    this.append(runId, { event: "interrupted", reason, ...slot });
    this.pendingRuns.drop(runId);
  }

  /**
   * Drops a pending run whose log already ended it (the daemon died after writing `finished`
   * and before pending.json was written again); true when it did.
   */
  dropEnded(runId: string): boolean {
    const known = this.replay(runId)?.summary;
    if (known === undefined || !isTerminal(known.status)) return false;
    this.pendingRuns.drop(runId);
    return true;
  }

  /** Puts a run rebuilt by `strandedClaims` back into pending.json. */
  relist(entry: PendingEntry): void {
    this.pendingRuns.set(entry);
  }

  /**
   * Runs among the newest claims that pending.json does not list although their log has no
   * end: the daemon died between claiming the slot and writing pending.json, or that write
   * failed. pending.json is rewritten after each turn of the daemon's event loop, so only
   * claims from about when it was last written can be in this state: the newest `newest`
   * claims are looked at, and any older ones made up to `lagMs` before that write. `entry`
   * is rebuilt from the log; undefined when not even the `scheduled` event was written (then
   * nothing was spawned).
   */
  strandedClaims(
    newest = 32,
    lagMs = PENDING_LAG_MS,
  ): Array<{ runId: string; key: string; entry?: PendingEntry }> {
    const writtenAt = this.tryRead("pending", () => pendingWrittenAt(this.pendingPath), undefined);
    const claims = [...this.slots];
    const out: Array<{ runId: string; key: string; entry?: PendingEntry }> = [];
    for (let i = claims.length - 1, seen = 0; i >= 0; i--, seen++) {
      const [key, runId] = claims[i]!;
      if (this.pendingRuns.get(runId) !== undefined) continue;
      const replay = this.replay(runId);
      const claimedAt = replay === undefined ? Number.NaN : Date.parse(replay.events[0]!.ts);
      const recent = writtenAt !== undefined && claimedAt >= writtenAt - lagMs;
      // Past the newest few, the walk ends at the first claim known to be older.
      if (seen >= newest && !recent) {
        if (Number.isNaN(claimedAt)) continue;
        break;
      }
      if (replay !== undefined && isTerminal(replay.summary.status)) continue;
      const scheduled = replay?.events.find((e) => e.event === "scheduled");
      const started = replay?.events.findLast((e) => e.event === "started");
      if (scheduled === undefined || scheduled.event !== "scheduled") {
        out.push({ runId, key });
        continue;
      }
      const entry = pendingFromScheduled(scheduled, scheduled.ts);
      out.push({
        runId,
        key,
        entry: started?.event === "started" ? withStart(entry, started, started.ts) : entry,
      });
    }
    return out.reverse();
  }

  /** True while the run has not ended (it is in pending.json). */
  isPending(runId: string): boolean {
    return this.pendingRuns.get(runId) !== undefined;
  }

  /** Runs not yet terminal (a copy). */
  pending(): PendingEntry[] {
    return this.pendingRuns.all();
  }

  /** Runs newest first (by creation), optionally of one schedule. */
  listRuns(query: { schedule?: string; limit?: number } = {}): RunSummary[] {
    const out: RunSummary[] = [];
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    for (const runId of this.index.newestFirst(query.schedule)) {
      if (out.length >= limit) break;
      const summary = this.summary(runId);
      if (summary) out.push(summary);
    }
    return out;
  }

  /** Run ids newest first (by creation), optionally of one schedule; summaries not read. */
  runIdsNewestFirst(schedule?: string): Iterable<string> {
    return this.index.newestFirst(schedule);
  }

  /** Schedules the ledger has runs (or skipped slots) of. */
  schedulesWithRuns(): Iterable<string> {
    return this.index.schedules();
  }

  latestRun(schedule: string): RunSummary | undefined {
    return this.listRuns({ schedule, limit: 1 })[0];
  }

  /** How many of the schedule's most recent runs in a row satisfy `predicate`. */
  consecutive(schedule: string, predicate: (run: RunSummary) => boolean): number {
    let count = 0;
    for (const runId of this.index.newestFirst(schedule)) {
      const summary = this.summary(runId);
      if (!summary || !predicate(summary)) break;
      count++;
    }
    return count;
  }

  /** The run's events in order and the summary they add up to (`runs show`). */
  replay(runId: string): { events: LedgerEvent[]; summary: RunSummary } | undefined {
    const path = this.runFilePath(runId);
    if (path === undefined) return undefined;
    const read = () => parseLines(new LineCursor(path).readNew(), decodeLedgerEvent).items;
    const events = this.tryRead("run log", read, []).filter((e) => e.runId === runId);
    const summary = summarize(events);
    return summary ? { events, summary } : undefined;
  }

  /** One run's summary (read once, then kept up to date); undefined for an unknown id. */
  summary(runId: string): RunSummary | undefined {
    const cached = this.summaries.get(runId) ?? this.replay(runId)?.summary;
    if (cached) this.summaries.set(runId, cached);
    return cached;
  }

  /** The wall clock stepped back from `until` to `from` (see RepeatWindow). */
  clockSteppedBack(from: Date, until: Date, repeats: (schedule: string) => boolean): void {
    this.repeat = new RepeatWindow(from, until, repeats);
  }

  private claim(run: SlotRun): ClaimResult {
    const plain = run.key ?? slotKey(run.schedule, run.slot);
    const slotClaim = this.repeat?.keyFor(plain, run, (k) => this.slots.has(k)) ?? plain;
    const key = attemptKey(slotClaim, run.attempt);
    const owner = this.slots.get(key) ?? this.claimOnDisk(key, run.runId);
    if (owner !== undefined) return { kind: "duplicate", runId: owner };
    // In memory too: even if the disk refuses, this process never launches the slot twice.
    this.slots.set(key, run.runId);
    const ts = this.deps.now().toISOString();
    this.lines.append(this.slotsPath, encodeSlot(key, run.runId, ts));
    this.addToIndex(run.runId, run.schedule, run.slot.toISOString());
    return { kind: "claimed", key };
  }

  /**
   * The claim file another process (a pod, a daemon, a `fire`) may hold for `key`: its run
   * id when it does. A claim file that cannot be written (a full disk) leaves the claim to
   * this process's memory, as a ledger line it cannot write does: the run goes on.
   */
  private claimOnDisk(key: string, runId: string): string | undefined {
    try {
      const path = claimFilePath(this.stateDir, key);
      const claim = this.deps.claimFile(path, runId);
      if (claim.kind === "claimed") return undefined;
      if (this.claimStateOf(path, claim.runId).kind !== "orphaned")
        return claim.runId || UNREADABLE_CLAIM;
      // Of two processes retaking it, one creates this file; the other finds it taken.
      const retake = this.deps.claimFile(retakePath(path), runId);
      if (retake.kind === "taken") return retake.runId || UNREADABLE_CLAIM;
      this.deps.logger.warn(
        { key, runId, orphaned: claim.runId },
        "retook an orphaned slot claim: its claimer died before recording its run, which never started",
      );
      return undefined;
    } catch (err) {
      this.deps.logger.error({ err, key }, "slot claim file not written; the claim is in memory");
      return undefined;
    }
  }

  /** How the claim at `path`, naming `owner`, stands for this ledger (see claim-retake.ts). */
  private claimStateOf(path: string, owner: string): ClaimState {
    const policy = this.deps.retake;
    if (policy === undefined || owner === "" || this.index.dateOf(owner) !== undefined)
      return { kind: "standing" };
    return claimState(this.stateDir, path, owner, policy, this.deps.now().getTime());
  }

  private addToIndex(runId: string, schedule: string, slotIso: string): void {
    const entry = { runId, date: slotIso.slice(0, 10), schedule };
    this.index.add(entry);
    this.lines.append(this.indexPath, encodeIndexEntry(entry));
  }

  /** Writes one event and folds it into the cached summary; a failed write is only logged. */
  private append(runId: string, input: LedgerEventInput): void {
    const { event: name, ...fields } = input;
    const ts = this.deps.now().toISOString();
    const event = { ts, event: name, runId, ...fields } as LedgerEvent;
    this.summaries.set(runId, applyEvent(this.summary(runId), event));
    const path = this.runFilePath(runId);
    if (path === undefined) {
      this.deps.logger.warn(
        { runId, event: name },
        "run ledger: unknown run id; event not written",
      );
      return;
    }
    this.lines.append(path, JSON.stringify(event));
  }

  /** Writes the lines a failed write held (a full disk), in order; true when none is left. */
  retryHeld(): boolean {
    return this.lines.flush();
  }

  /** The ledger's writes are failing (lines held in memory): since when, and why. */
  writeTrouble(): WriteTrouble | undefined {
    return this.lines.trouble();
  }

  private tryRead<T>(what: string, read: () => T, fallback: T): T {
    try {
      return read();
    } catch (err) {
      this.deps.logger.error({ err, what }, "run ledger read failed; going on without it");
      return fallback;
    }
  }
}
