// The daemon's ledger writes with group commit. Each line is written at once (one write(2) on
// an O_APPEND descriptor, so readers and a restart after this process dies see it); the
// fsyncs of everything written in a turn of the event loop run together on libuv's thread
// pool after it, and pending.json is rewritten then with the turn's last content. A spawn
// used to hold the loop for its fsyncs; now the loop only waits for write(2).
// `durable()` resolves once everything written before it is on disk: the daemon awaits it
// between a slot's claim and its spawn, so a claim is on disk before its run exists.
import { LineAppender } from "../../journal/append.js";
import { writeFileAtomicAsync } from "../../util/atomic-write.js";
import type { LedgerDeps, LedgerLogger } from "./inputs.js";

interface Batch {
  appenders: Set<LineAppender>;
  rewrites: Map<string, string>;
  waiters: Array<() => void>;
}

const emptyBatch = (): Batch => ({ appenders: new Set(), rewrites: new Map(), waiters: [] });

export class GroupCommit {
  private readonly open = new Map<string, LineAppender>();
  /** fsyncs in flight per appender: it is closed only when none are and it was not written since. */
  private readonly syncing = new Map<LineAppender, number>();
  private batch = emptyBatch();
  private scheduled = false;
  /** Settles when every batch handed out so far is on disk (batches finish in order). */
  private last: Promise<void> = Promise.resolve();
  /** Per rewritten file: the newest content not yet written, and the write chain. */
  private readonly newest = new Map<string, string>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Rewrites failing now (their failure logged once). */
  private readonly failing = new Set<string>();

  constructor(private readonly logger: LedgerLogger) {}

  /** The ledger's writes routed through this group commit, and its logger. */
  ledgerDeps(): Pick<LedgerDeps, "logger" | "appendLine" | "writeAtomic" | "durable"> {
    return {
      logger: this.logger,
      appendLine: (path, line) => this.appendLine(path, line),
      writeAtomic: (path, content) => this.writeAtomic(path, content),
      durable: () => this.durable(),
    };
  }

  /** Writes the line now; its fsync follows after this turn. Throws what write(2) throws. */
  appendLine(path: string, line: string): void {
    let appender = this.open.get(path);
    if (appender === undefined) {
      appender = new LineAppender(path, { fsync: false, private: true });
      this.open.set(path, appender);
    }
    appender.appendLine(line);
    this.batch.appenders.add(appender);
    this.schedule();
  }

  /** Rewrites the file atomically after this turn, with the last content given in it. */
  writeAtomic(path: string, content: string): void {
    this.batch.rewrites.set(path, content);
    this.schedule();
  }

  /** Resolves when everything written before the call is on disk (failures are logged). */
  durable(): Promise<void> {
    if (this.batch.appenders.size === 0 && this.batch.rewrites.size === 0) return this.last;
    const done = new Promise<void>((resolve) => this.batch.waiters.push(resolve));
    this.flush();
    return done;
  }

  /** Writes out what is left and closes every file (the daemon's shutdown). */
  async close(): Promise<void> {
    await this.durable();
    for (const appender of this.open.values()) appender.close();
    this.open.clear();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    const { appenders, rewrites, waiters } = this.batch;
    if (appenders.size === 0 && rewrites.size === 0) return;
    this.batch = emptyBatch();
    this.scheduled = false;
    const work: Promise<void>[] = [this.last];
    for (const appender of appenders) work.push(this.sync(appender));
    for (const [path, content] of rewrites) work.push(this.rewrite(path, content));
    this.last = Promise.all(work).then(() => {
      for (const resolve of waiters) resolve();
    });
  }

  private async sync(appender: LineAppender): Promise<void> {
    this.syncing.set(appender, (this.syncing.get(appender) ?? 0) + 1);
    try {
      await appender.sync();
    } catch (err) {
      this.logger.error({ err, what: appender.path }, "run ledger fsync failed; the run goes on");
    } finally {
      const left = (this.syncing.get(appender) ?? 1) - 1;
      if (left > 0) this.syncing.set(appender, left);
      else {
        this.syncing.delete(appender);
        // A run's log is written a few times in its life: no descriptor is kept between.
        if (!this.batch.appenders.has(appender)) {
          appender.close();
          this.open.delete(appender.path);
        }
      }
    }
  }

  /** One write at a time per file; a write takes the newest content, so none is stale. */
  private rewrite(path: string, content: string): Promise<void> {
    this.newest.set(path, content);
    const next = (this.chains.get(path) ?? Promise.resolve()).then(async () => {
      const text = this.newest.get(path);
      if (text === undefined) return; // an earlier write in the chain took it
      this.newest.delete(path);
      try {
        await writeFileAtomicAsync(path, text);
        if (this.failing.delete(path))
          this.logger.warn({ what: path }, "run ledger: the file is written again");
      } catch (err) {
        // Once per spell: a full disk refuses every rewrite until space returns.
        if (!this.failing.has(path))
          this.logger.error({ err, what: path }, "run ledger write failed; the run goes on");
        this.failing.add(path);
      }
    });
    this.chains.set(path, next);
    return next;
  }
}
