// Keeps the state of every run seen in the followed journals, applying each delivered batch
// exactly once although the follower delivers at least once.
import type { JournalRecord } from "../../journal/codec.js";
import { applyRecord, newRunState, type RunState, timestampMs } from "./run-state.js";

/** A follower batch (`LineBatch` fits); offsets are byte positions in the journal. */
export interface RecordBatch {
  records: readonly JournalRecord[];
  startOffset?: number;
  endOffset?: number;
}

/** What the tracker knows, as plain JSON: for `status` and to persist beside positions. */
export interface TrackerSnapshot {
  runs: RunState[];
  /** Per journal: the end offset of the last batch applied. */
  offsets: Record<string, number>;
  /** Per run: replay detection state (see `apply`). */
  marks: Record<string, { ms: number; keys: string[] }>;
}

export interface TrackerOptions {
  /** Forget a run this long after its terminal record (default 24 h). */
  keepTerminalMs?: number;
  /** Forget a run without a terminal record after this long with no record (default 7 d). */
  keepIdleMs?: number;
}

/** Where replay detection stands for one run: the ts of its newest record and what came at it. */
interface Watermark {
  ms: number;
  keys: Set<string>;
}

const recordKey = (r: JournalRecord) => `${r.topic}\u0000${r.iteration ?? ""}`;

export class RunTracker {
  private readonly runs = new Map<string, RunState>();
  private readonly offsets = new Map<string, number>();
  /**
   * Each journal's `"path":offset` in the snapshot, kept until its offset moves: every
   * journal's offset written afresh (one object, then its JSON) held the loop on each save.
   */
  private readonly offsetJson = new Map<string, { offset: number; text: string }>();
  private readonly marks = new Map<string, Watermark>();
  /**
   * Each run's part of `snapshotText` (its state, and its watermark as a member of "marks"),
   * kept until a record changes the run: a snapshot of every run serialized afresh held
   * the event loop on every save; now it costs the runs that changed.
   */
  private readonly runJson = new Map<string, { run: string; mark: string | undefined }>();
  private readonly keepTerminalMs: number;
  private readonly keepIdleMs: number;

  constructor(options: TrackerOptions = {}, snapshot?: TrackerSnapshot) {
    this.keepTerminalMs = options.keepTerminalMs ?? 86_400_000;
    this.keepIdleMs = options.keepIdleMs ?? 7 * 86_400_000;
    for (const run of snapshot?.runs ?? []) this.runs.set(run.run, structuredClone(run));
    for (const [run, m] of Object.entries(snapshot?.marks ?? {}))
      this.marks.set(run, { ms: m.ms, keys: new Set(m.keys) });
    for (const [path, offset] of Object.entries(snapshot?.offsets ?? {}))
      this.offsets.set(path, offset);
  }

  /**
   * Applies a batch from `journalPath`; returns how many records were applied.
   *
   * Replay rule: a batch ending at or before the journal's last applied offset is skipped
   * whole; one starting at or after it is applied whole. Anything else (an overlap, no
   * offsets, the first batch after a reset) is filtered per record: a run's record older
   * than the newest one applied, or at the same ts with the same topic and iteration, is a
   * replay. (Two identical records in the same millisecond would lose one, in that case only.)
   */
  apply(journalPath: string, batch: RecordBatch): number {
    const mark = this.offsets.get(journalPath);
    const { startOffset, endOffset } = batch;
    if (mark !== undefined && endOffset !== undefined && endOffset <= mark) return 0;
    const whole = mark !== undefined && startOffset !== undefined && startOffset >= mark;
    let applied = 0;
    for (const record of batch.records) {
      if (!whole && this.isReplay(record)) continue;
      this.applyOne(journalPath, record);
      applied += 1;
    }
    if (endOffset !== undefined) this.offsets.set(journalPath, Math.max(mark ?? 0, endOffset));
    return applied;
  }

  /** The follower read the journal again from byte 0 (rotated, truncated, replaced). */
  resetJournal(journalPath: string): void {
    this.offsets.delete(journalPath);
    this.offsetJson.delete(journalPath);
  }

  get(run: string): RunState | undefined {
    return this.runs.get(run);
  }

  /** Runs changed (or loaded) since the last `snapshotParts`: what the next one serializes. */
  changedRuns(): number {
    return this.runs.size - this.runJson.size;
  }

  /** Every tracked run (live objects: treat as read-only). */
  list(): RunState[] {
    return [...this.runs.values()];
  }

  snapshot(): TrackerSnapshot {
    return {
      runs: this.list().map((r) => structuredClone(r)),
      offsets: Object.fromEntries(this.offsets),
      marks: Object.fromEntries(
        [...this.marks].map(([run, m]) => [run, { ms: m.ms, keys: [...m.keys] }]),
      ),
    };
  }

  /**
   * `snapshot()` as JSON text, serialized straight from the live state: no deep copy of
   * every run (the copies, and their garbage, would cost time on every save).
   */
  snapshotText(): string {
    return this.snapshotParts().join("");
  }

  /** `snapshotText` in pieces (a run's state, a comma, …), to write without joining them. */
  snapshotParts(): string[] {
    const runs: string[] = [];
    const marks: string[] = [];
    for (const [id, state] of this.runs) {
      let json = this.runJson.get(id);
      if (json === undefined) {
        const m = this.marks.get(id);
        json = {
          run: JSON.stringify(state),
          mark:
            m === undefined
              ? undefined
              : `${JSON.stringify(id)}:${JSON.stringify({ ms: m.ms, keys: [...m.keys] })}`,
        };
        this.runJson.set(id, json);
      }
      if (runs.length > 0) runs.push(",");
      runs.push(json.run);
      if (json.mark !== undefined) {
        if (marks.length > 0) marks.push(",");
        marks.push(json.mark);
      }
    }
    const offsets: string[] = [];
    for (const [path, offset] of this.offsets) {
      let kept = this.offsetJson.get(path);
      if (kept?.offset !== offset) {
        kept = { offset, text: `${JSON.stringify(path)}:${JSON.stringify(offset)}` };
        this.offsetJson.set(path, kept);
      }
      if (offsets.length > 0) offsets.push(",");
      offsets.push(kept.text);
    }
    // As JSON.stringify({ runs, offsets, marks }) writes it: every mark has its run.
    return ['{"runs":[', ...runs, '],"offsets":{', ...offsets, '},"marks":{', ...marks, "}}"];
  }

  /** Forgets runs that ended long ago or went silent for days; returns the ids forgotten. */
  prune(now: Date): string[] {
    const gone: string[] = [];
    for (const [id, run] of this.runs) {
      const end = run.terminal === undefined ? undefined : Date.parse(run.terminal.at);
      const old =
        end !== undefined
          ? now.getTime() - end > this.keepTerminalMs
          : now.getTime() - Date.parse(run.lastRecordAt) > this.keepIdleMs;
      if (!old) continue;
      this.runs.delete(id);
      this.marks.delete(id);
      this.runJson.delete(id);
      gone.push(id);
    }
    return gone;
  }

  private isReplay(record: JournalRecord): boolean {
    const mark = this.marks.get(record.run);
    const ms = timestampMs(record.ts);
    if (mark === undefined || !Number.isFinite(ms)) return false;
    return ms < mark.ms || (ms === mark.ms && mark.keys.has(recordKey(record)));
  }

  private applyOne(journalPath: string, record: JournalRecord): void {
    this.runJson.delete(record.run); // its state and watermark change here
    let state = this.runs.get(record.run);
    if (state === undefined) {
      state = newRunState(record.run, journalPath, record.ts);
      this.runs.set(record.run, state);
    }
    applyRecord(state, record);
    // A chain's steps show that the chain goes on; the chain reports how its steps ended.
    const chain = state.parentRun === undefined ? undefined : this.runs.get(state.parentRun);
    if (chain?.chain === true) {
      this.runJson.delete(chain.run);
      state.chainStep = true;
      if (Number.isFinite(timestampMs(record.ts))) chain.lastRecordAt = record.ts;
    }
    const ms = timestampMs(record.ts);
    if (!Number.isFinite(ms)) return;
    const mark = this.marks.get(record.run);
    if (mark === undefined || ms > mark.ms) this.marks.set(record.run, { ms, keys: new Set() });
    const current = this.marks.get(record.run)!;
    if (ms === current.ms) current.keys.add(recordKey(record));
  }
}
