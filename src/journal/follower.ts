// Follows journals like `tail -F` from saved positions: fs.watch on each journal's directory,
// polling as fallback and safety net; batches are delivered at least once, then committed.
import { closeSync, fstatSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { writeFileAtomicAsync } from "../util/atomic-write.js";
import { SliceTimer } from "../util/steps.js";
import {
  DEFAULT_FLUSH_EVERY_MS,
  type Followed,
  type FollowerDeps,
  type FollowerOptions,
  type JournalStatus,
  MIN_FLUSH_GAP_MS,
} from "./follow-options.js";
import { checkPosition, DEFAULT_CHUNK_BYTES, openFollowed, readBatches } from "./follow-read.js";
import { defaultWakeupDeps, JournalWakeups } from "./follow-wakeups.js";
import { type JournalPosition, loadPositions, positionsParts, startPosition } from "./positions.js";

export type { FollowerDeps, FollowerOptions, JournalStatus } from "./follow-options.js";
export type { LineBatch, ResetReason } from "./follow-read.js";
export type { DirectoryWatch, WatchDirectory } from "./follow-wakeups.js";

/** Read ahead of a stat, per poll: a busy journal's new lines are usually far fewer bytes. */
const READ_AHEAD_BYTES = 64 * 1024;

export class JournalFollower {
  readonly positionProblems: string[];
  private readonly deps: FollowerDeps;
  private readonly positions: Map<string, JournalPosition>;
  private readonly followed = new Map<string, Followed>();
  private readonly wakeups: JournalWakeups;
  /** Journals waiting for the running background poll to finish. */
  private readonly pending = new Set<string>();
  private started = false;
  /** A background poll is queued or running; more requests wait in `pending`. */
  private busy = false;
  private dirty = false;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private lastDiscoverAt = Number.NEGATIVE_INFINITY;
  /** Polls run one after another on this chain, which never rejects. */
  private chain: Promise<unknown> = Promise.resolve();
  /** The position save in flight (one at a time); never rejects. */
  private flushing: Promise<void> | undefined;
  private readonly safetyPollMs: number;
  private readonly readAhead = Buffer.allocUnsafeSlow(READ_AHEAD_BYTES);

  constructor(private readonly options: FollowerOptions) {
    this.deps = { ...defaultWakeupDeps, ...options.deps };
    this.safetyPollMs = options.safetyPollMs ?? 10_000;
    this.wakeups = new JournalWakeups(
      this.deps,
      {
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        safetyPollMs: this.safetyPollMs,
        debounceMs: options.debounceMs ?? 50,
      },
      (paths) => this.pollInBackground(paths),
      (path) => this.followed.get(path)?.lastPolledAt ?? Number.NEGATIVE_INFINITY,
      () => {
        this.maybeDiscover();
        if (!this.busy) this.flushInBackground();
      },
    );
    const loaded = options.positionsFile
      ? loadPositions(options.positionsFile)
      : { positions: new Map<string, JournalPosition>(), problems: [] };
    this.positions = loaded.positions;
    this.positionProblems = loaded.problems;
  }

  add(path: string): void {
    const abs = resolve(path);
    if (this.followed.has(abs)) return;
    const stats = { bytesRead: 0, records: 0, skippedLines: 0, resets: 0 };
    this.followed.set(abs, {
      path: abs,
      checked: false,
      statAt: Number.NEGATIVE_INFINITY,
      size: 0,
      lastPolledAt: Number.NEGATIVE_INFINITY,
      stats,
    });
    this.wakeups.add(abs);
    this.wakeups.nudge(abs);
  }

  /** Stops following `path`; its saved position is kept, so adding it again resumes. */
  remove(path: string): void {
    const abs = resolve(path);
    const f = this.followed.get(abs);
    if (f === undefined) return;
    this.followed.delete(abs);
    this.wakeups.remove(abs);
    // Closed after any poll in flight, which may be reading from this descriptor.
    this.chain = this.chain.then(() => this.closeFile(f)).catch(() => {});
  }

  paths(): string[] {
    return [...this.followed.keys()];
  }

  /** Starts watching and polling; resolves once every journal has been read up to now. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.wakeups.start();
    await this.discover();
    await this.poll();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.wakeups.stop();
    this.pending.clear();
    await this.chain.catch(() => {});
    await this.flushPositions();
    for (const f of this.followed.values()) this.closeFile(f);
  }

  /**
   * Reads what is new in `paths` (default: all), one poll at a time. Failures go to
   * `onError` and the first one is rethrown after the others were polled.
   */
  poll(paths?: string | string[]): Promise<void> {
    const list = paths === undefined ? this.paths() : [paths].flat().map((p) => resolve(p));
    return this.pollQueued(list, false);
  }

  /** `poll` on the chain; `quick`: a poll may read the open file without looking at the path. */
  private pollQueued(list: string[], quick: boolean): Promise<void> {
    const run = this.chain.then(() => this.pollNow(list, quick));
    this.chain = run.catch(() => {});
    return run;
  }

  /**
   * Writes the committed positions if they changed (atomically, off the event loop), after
   * `beforeFlush` saved the state derived from them; waits for a save already in flight.
   */
  async flushPositions(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    const file = this.options.positionsFile;
    if (!this.dirty || file === undefined) return;
    this.lastFlushAt = this.deps.now();
    this.dirty = false;
    // Both taken in this same tick: the derived state covers every batch committed here.
    const text = positionsParts(this.positions);
    const save = (async () => {
      await this.options.beforeFlush?.();
      await writeFileAtomicAsync(file, text);
    })();
    this.flushing = save.then(
      () => {
        this.flushing = undefined;
      },
      () => {
        this.dirty = true; // written again on the next flush
        this.flushing = undefined;
      },
    );
    await save;
  }

  position(path: string): JournalPosition | undefined {
    return this.positions.get(resolve(path));
  }

  status(): JournalStatus[] {
    return [...this.followed.values()].map((f) => {
      const offset = this.positions.get(f.path)?.offset ?? 0;
      const watched = this.wakeups.isWatched(f.path);
      const lagBytes = Math.max(0, f.size - offset);
      return { path: f.path, offset, size: f.size, lagBytes, ...f.stats, watched };
    });
  }

  private async pollNow(paths: string[], quick: boolean): Promise<void> {
    let first: { err: unknown } | undefined;
    // Thousands of journals due at once (their safety polls come together) held the loop:
    // the loop gets a turn every few ms, between journals (each commit is whole).
    const slices = new SliceTimer();
    for (const path of paths) {
      const f = this.followed.get(path);
      if (f === undefined) continue;
      try {
        await this.pollOne(f, quick);
      } catch (err) {
        first ??= { err };
        this.onError(path, err);
      }
      await slices.turnIfDue();
    }
    this.flushInBackground();
    if (first) throw first.err;
  }

  /** A periodic save, once due: skipped while one is in flight (the next tick catches up). */
  private flushInBackground(): void {
    const since = this.deps.now() - this.lastFlushAt;
    const every = this.options.flushEveryMs ?? DEFAULT_FLUSH_EVERY_MS;
    const due = since >= every || (since >= MIN_FLUSH_GAP_MS && this.options.flushEarly?.());
    if (!due || this.flushing !== undefined) return;
    this.flushPositions().catch((err) => this.onError("(positions)", err));
  }

  /**
   * Reads what is new in one journal. A quick poll (a background one) of a watched journal
   * whose name saw only content changes reads the open file first, and looks at the path
   * (stat) only when nothing new was there, when more than the read-ahead came, or once a
   * safety poll's time has passed: a stat per poll was a visible share of a busy monitor's
   * CPU. A created, renamed or deleted name always gets the full look, as does an
   * explicit `poll()`, which reads everything there is. A directory moved or replaced as a
   * whole (its watch names the directory, not the journal) while the old file is still
   * written to is taken up at the next safety poll at the latest; no line is lost.
   */
  private async pollOne(f: Followed, quick: boolean): Promise<void> {
    const now = this.deps.now();
    f.lastPolledAt = now;
    const renamed = this.wakeups.renamed.delete(f.path);
    if (
      quick &&
      !renamed &&
      f.fd !== undefined &&
      f.checked &&
      now - f.statAt < this.safetyPollMs &&
      this.wakeups.isWatched(f.path)
    ) {
      const pos = this.positions.get(f.path);
      const fresh = pos?.inode === f.fdInode ? this.readFresh(f.fd, pos!.offset) : undefined;
      if (fresh !== undefined) {
        await this.consume(f, f.fd, f.fdInode!, pos!.offset + fresh.length, fresh);
        if (fresh.length < READ_AHEAD_BYTES) return;
      }
    }
    f.statAt = now;
    const stat = statSync(f.path, { throwIfNoEntry: false });
    const moved = stat === undefined || stat.ino !== f.fdInode || stat.dev !== f.fdDevice;
    if (f.fd !== undefined && moved) {
      // Renamed away or deleted: its writers may have appended before that, finish it first.
      await this.consume(f, f.fd, f.fdInode!, fstatSync(f.fd).size);
      this.closeFile(f);
    }
    if (stat === undefined) return;
    if (f.fd === undefined) {
      const file = openFollowed(f, stat);
      if (file === undefined) return;
      const { fd, stat: opened } = file;
      f.fd = fd;
      f.fdInode = opened.ino;
      f.fdDevice = opened.dev;
      f.checked = false;
      await this.consume(f, fd, opened.ino, opened.size);
      return;
    }
    // The path's stat is the open file's (same device and inode): its size needs no second call.
    await this.consume(f, f.fd, f.fdInode!, stat.size);
  }

  /** The bytes after `offset` in the open file (up to the read-ahead), copied; none: undefined. */
  private readFresh(fd: number, offset: number): Buffer | undefined {
    const n = readSync(fd, this.readAhead, 0, READ_AHEAD_BYTES, offset);
    return n > 0 ? Buffer.from(this.readAhead.subarray(0, n)) : undefined;
  }

  private async consume(
    f: Followed,
    fd: number,
    inode: number,
    size: number,
    first?: Buffer,
  ): Promise<void> {
    let pos = this.positions.get(f.path);
    // Checked once per opened file (and on shrinking): re-hashing the last line on every
    // poll with new data was a visible share of a busy monitor's CPU.
    if (pos === undefined || !f.checked || size < pos.offset) {
      const check = pos ? checkPosition(fd, { inode, size }, pos) : undefined;
      if (pos === undefined || check?.kind === "reset") {
        first = undefined; // read at the old position: the new one starts at byte 0
        pos = startPosition(inode);
        this.commit(f.path, pos);
        if (check?.kind === "reset") {
          f.stats.resets++;
          this.options.onReset?.(f.path, check.reason);
        }
      }
      f.checked = true;
    }
    f.size = size;
    const chunk = this.options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    for (const { next, ...batch } of readBatches(fd, pos, size, f.stats, chunk, first)) {
      await this.options.onLines(f.path, batch);
      if (batch.longLine) {
        this.options.onLongLine?.(f.path, batch.startOffset);
        // Skipping a huge line reads many bytes: other work gets a turn between its pieces.
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.commit(f.path, next);
      f.stats.records += batch.records.length;
      f.stats.skippedLines += batch.skipped;
    }
  }

  private onError(path: string, err: unknown): void {
    if (this.options.onError) this.options.onError(path, err);
    else process.stderr.write(`journal follower: ${path}: ${String(err)}\n`);
  }

  private commit(path: string, pos: JournalPosition): void {
    this.positions.set(path, pos);
    this.dirty = true;
  }

  private closeFile(f: Followed): void {
    if (f.fd !== undefined) closeSync(f.fd);
    f.fd = undefined;
    f.fdInode = undefined;
    f.fdDevice = undefined;
  }

  /** At most one background poll at a time, so a slow first pass never piles up polls. */
  private pollInBackground(paths: string[]): void {
    for (const path of paths) this.pending.add(path);
    if (this.busy || this.pending.size === 0) return;
    this.busy = true;
    const batch = [...this.pending];
    this.pending.clear();
    // Woken by a change or the safety net: a quick poll (see pollOne).
    this.pollQueued(batch, true)
      .catch(() => {}) // already reported through onError
      .finally(() => {
        this.busy = false;
        if (this.started) this.pollInBackground([]);
      });
  }

  private maybeDiscover(): void {
    const every = this.options.discoverIntervalMs ?? 30_000;
    if (this.deps.now() - this.lastDiscoverAt < every) return;
    this.discover().catch((err) => this.onError("(discover)", err));
  }

  private async discover(): Promise<void> {
    if (this.options.discover === undefined) return;
    this.lastDiscoverAt = this.deps.now();
    for (const path of await this.options.discover()) this.add(path);
  }
}
