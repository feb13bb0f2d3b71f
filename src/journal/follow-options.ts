// The journal follower's options, injectable dependencies and per-journal status counters.
import type { LineBatch, ResetReason } from "./follow-read.js";
import type { WakeupDeps } from "./follow-wakeups.js";

/**
 * How often changed positions are saved. Each save rewrites every journal's position (and
 * the monitor's whole run tracker): once a second it was a large share of a busy monitor's
 * CPU. After a crash, what came after the last save is read again.
 */
export const DEFAULT_FLUSH_EVERY_MS = 5000;

/** The shortest time between two saves, however early one is asked for (`flushEarly`). */
export const MIN_FLUSH_GAP_MS = 1000;

/** Clock, timers and fs.watch, replaceable by tests. */
export type FollowerDeps = WakeupDeps;

export interface FollowerOptions {
  /** Saved positions (e.g. `<state_dir>/monitor/positions.json`); none: kept in memory only. */
  positionsFile?: string;
  /** Gets each batch of new lines; the position advances only once this returns/resolves. */
  onLines: (path: string, batch: LineBatch) => void | Promise<void>;
  onReset?: (path: string, reason: ResetReason) => void;
  /** A line past the length limit was skipped at `offset` (a run can write anything). */
  onLongLine?: (path: string, offset: number) => void;
  /**
   * Called before committed positions are written: save state derived from the batches first
   * (snapshot it synchronously; the positions are written once the returned promise resolves,
   * and not at all when it rejects).
   */
  beforeFlush?: () => void | Promise<void>;
  /** Changed positions are saved at least this often (default 5 s), and on stop. */
  flushEveryMs?: number;
  /**
   * A save sooner than `flushEveryMs` (but not within a second of the last) when this says
   * so: e.g. when the state saved with the positions has grown costly to serialize at once.
   */
  flushEarly?: () => boolean;
  /** Failures of polls (a throwing `onLines`, an unreadable file); default: stderr. */
  onError?: (path: string, err: unknown) => void;
  /** How often unwatched journals are polled (their directory is missing or unwatchable). */
  pollIntervalMs?: number;
  /** Every journal is polled at least this often: fs.watch misses events on some filesystems. */
  safetyPollMs?: number;
  /** Coalesces bursts of watch events into one poll. */
  debounceMs?: number;
  /** Finds journals to follow (e.g. re-expanded globs); called at start and periodically. */
  discover?: () => Promise<string[]> | string[];
  discoverIntervalMs?: number;
  chunkBytes?: number;
  deps?: Partial<FollowerDeps>;
}

/** Counters for `status` and metrics. */
export interface JournalStatus {
  path: string;
  offset: number;
  size: number;
  /** Bytes on disk not consumed yet (size - offset), a torn last line included. */
  lagBytes: number;
  bytesRead: number;
  records: number;
  skippedLines: number;
  resets: number;
  watched: boolean;
}

/** One followed journal, as the follower keeps it. */
export interface Followed {
  path: string;
  fd?: number;
  fdInode?: number;
  /** The open file's device: with the inode, what says the path still names it. */
  fdDevice?: number;
  /** The saved position was verified against the open file. */
  checked: boolean;
  /** When the path was last looked at (stat): at least every safety poll while data comes. */
  statAt: number;
  size: number;
  lastPolledAt: number;
  stats: { bytesRead: number; records: number; skippedLines: number; resets: number };
  /** The file (device:inode) last refused as not a regular one: reported once, not per poll. */
  refused?: string | undefined;
}
