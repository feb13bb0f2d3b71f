// When to look at a journal again: fs.watch on each journal's directory (so a journal that
// does not exist yet is noticed when created), debounced, plus a polling timer as fallback.
import { watch as fsWatch } from "node:fs";
import { basename, dirname } from "node:path";
import { after, type Pending } from "../util/timers.js";

/** A live watch on one directory. */
export interface DirectoryWatch {
  close(): void;
}

/**
 * Watches `dir`; `onChange` gets the changed entry's name (null when the platform omits it)
 * and whether the entry itself came, went or was renamed (not only its content changed).
 */
export type WatchDirectory = (
  dir: string,
  onChange: (filename: string | null, renamed: boolean) => void,
  onError: (err: Error) => void,
) => DirectoryWatch;

export const watchDirectory: WatchDirectory = (dir, onChange, onError) => {
  const watcher = fsWatch(dir, (event, name) =>
    onChange(name === null ? null : String(name), event === "rename"),
  );
  watcher.on("error", onError);
  return watcher;
};

export interface WakeupDeps {
  now: () => number;
  setInterval: (fn: () => void, ms: number) => unknown;
  clearInterval: (handle: unknown) => void;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  watch: WatchDirectory;
}

export const defaultWakeupDeps: WakeupDeps = {
  now: () => Date.now(),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
  // A leading-edge wake-up (wait 0) runs right after the current work, not 1 ms later.
  setTimeout: (fn, ms) => after(ms, fn),
  clearTimeout: (h) => (h as Pending | undefined)?.cancel(),
  watch: watchDirectory,
};

export interface WakeupOptions {
  /** How often journals in unwatchable (e.g. missing) directories are polled. */
  pollIntervalMs: number;
  /** Every journal is polled at least this often: fs.watch misses events on some filesystems. */
  safetyPollMs: number;
  /** Coalesces bursts of watch events into one wake-up. */
  debounceMs: number;
}

export class JournalWakeups {
  private readonly dirs = new Map<string, { watch?: DirectoryWatch; paths: Set<string> }>();
  private readonly changed = new Set<string>();
  /**
   * Journals whose directory entry changed (created, renamed, deleted, or an event without a
   * name) since their last poll: the poll must look at the path, not only the open file.
   */
  readonly renamed = new Set<string>();
  private debounce: unknown;
  private interval: unknown;
  private started = false;
  private lastWakeAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: WakeupDeps,
    private readonly options: WakeupOptions,
    /** Called with the journals to poll now. */
    private readonly wake: (paths: string[]) => void,
    /** When a journal was last polled, for the safety net. */
    private readonly lastPolledAt: (path: string) => number,
    /** Called on every timer tick, after `wake` (periodic chores such as re-globbing). */
    private readonly onTick: () => void = () => {},
  ) {}

  add(path: string): void {
    const dir = dirname(path);
    const entry = this.dirs.get(dir) ?? { paths: new Set<string>() };
    entry.paths.add(path);
    this.dirs.set(dir, entry);
    this.ensureWatch(dir);
  }

  remove(path: string): void {
    this.renamed.delete(path);
    const entry = this.dirs.get(dirname(path));
    entry?.paths.delete(path);
    if (entry && entry.paths.size === 0) {
      entry.watch?.close();
      this.dirs.delete(dirname(path));
    }
  }

  isWatched(path: string): boolean {
    return this.dirs.get(dirname(path))?.watch !== undefined;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const dir of this.dirs.keys()) this.ensureWatch(dir);
    this.interval = this.deps.setInterval(() => this.tick(), this.options.pollIntervalMs);
  }

  stop(): void {
    this.started = false;
    this.deps.clearInterval(this.interval);
    this.deps.clearTimeout(this.debounce);
    this.debounce = undefined;
    this.changed.clear();
    for (const entry of this.dirs.values()) {
      entry.watch?.close();
      entry.watch = undefined;
    }
  }

  /** Asks for a poll of `path` soon (debounced), e.g. right after it was added. */
  nudge(path: string): void {
    this.changed.add(path);
    if (this.debounce !== undefined || !this.started) return;
    // Leading edge: the first change after a quiet spell is read at once; the ones that
    // follow within debounceMs are coalesced into one later wake-up.
    const wait = Math.max(0, this.lastWakeAt + this.options.debounceMs - this.deps.now());
    this.debounce = this.deps.setTimeout(() => {
      this.debounce = undefined;
      this.lastWakeAt = this.deps.now();
      const paths = [...this.changed];
      this.changed.clear();
      this.wake(paths);
    }, wait);
  }

  private ensureWatch(dir: string): void {
    const entry = this.dirs.get(dir);
    if (entry === undefined || entry.watch !== undefined || !this.started) return;
    try {
      entry.watch = this.deps.watch(
        dir,
        (name, renamed) => {
          for (const path of entry.paths) {
            if (name !== null && basename(path) !== name) continue;
            if (renamed || name === null) this.renamed.add(path);
            this.nudge(path);
          }
        },
        () => {
          // The directory went away or the watch broke: poll until it can be watched again.
          entry.watch?.close();
          entry.watch = undefined;
        },
      );
    } catch {
      // The directory does not exist yet: `tick` polls its journals and retries the watch.
    }
  }

  private tick(): void {
    const now = this.deps.now();
    const due: string[] = [];
    for (const [dir, entry] of this.dirs) {
      this.ensureWatch(dir);
      for (const path of entry.paths) {
        const quiet = now - this.lastPolledAt(path) >= this.options.safetyPollMs;
        if (entry.watch === undefined || quiet) due.push(path);
      }
    }
    if (due.length > 0) this.wake(due);
    this.onTick();
  }
}
