// Pending fires ordered by instant, handed out an instant at a time: every entry due then,
// in name order. A binary heap keeps them (as compact as one array); the next instant shared
// by several schedules is taken off it ahead of time, into name order ("staged"), so that
// when a thousand schedules fall due on one second the due pass only walks an array.
import { MinHeap } from "./min-heap.js";

export interface TimedEntry {
  fireAt: number;
  name: string;
}

export interface Instant<T extends TimedEntry> {
  readonly fireAt: number;
  /** In name order. */
  readonly entries: T[];
}

const byName = (a: TimedEntry, b: TimedEntry): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export class InstantQueue<T extends TimedEntry> {
  private readonly heap = new MinHeap<T>((a, b) => a.fireAt < b.fireAt);
  private staged: Instant<T> | undefined;

  /** Entries held, stale ones included until they are taken or retained away. */
  get size(): number {
    return this.heap.size + (this.staged?.entries.length ?? 0);
  }

  push(entry: T): void {
    this.heap.push(entry);
  }

  /**
   * The earliest instant, and whether it is ready: its entries already in name order (staged,
   * or a lone entry) so that handing it out costs no sorting.
   */
  peek(): { fireAt: number; ready: boolean } | undefined {
    const top = this.heap.peek();
    const staged = this.staged;
    if (staged !== undefined && (top === undefined || staged.fireAt < top.fireAt))
      return { fireAt: staged.fireAt, ready: true };
    if (top === undefined) return undefined;
    const lone = staged?.fireAt !== top.fireAt && this.heap.second()?.fireAt !== top.fireAt;
    return { fireAt: top.fireAt, ready: lone };
  }

  /** Takes the entries at `fireAt` off the heap, in name order, ahead of their time; how many. */
  prepare(fireAt: number): number {
    const staged = this.staged;
    if (staged !== undefined && staged.fireAt !== fireAt) {
      // An earlier instant came first (a schedule added meanwhile): the staged one goes back.
      for (const entry of staged.entries) this.heap.push(entry);
      this.staged = undefined;
    }
    const entries = this.staged?.entries ?? [];
    const before = entries.length;
    for (let top = this.heap.peek(); top?.fireAt === fireAt; top = this.heap.peek()) {
      this.heap.pop();
      entries.push(top);
    }
    if (entries.length > before && entries.length > 1) entries.sort(byName);
    this.staged = { fireAt, entries };
    return entries.length;
  }

  /** Removes and returns the earliest instant if it is due at `now`. */
  takeDue(now: number): Instant<T> | undefined {
    const next = this.peek();
    if (next === undefined || next.fireAt > now) return undefined;
    this.prepare(next.fireAt);
    const due = this.staged!;
    this.staged = undefined;
    return due;
  }

  /** Keeps only the entries `keep` accepts. */
  retain(keep: (entry: T) => boolean): void {
    this.heap.retain(keep);
    const staged = this.staged;
    if (staged === undefined) return;
    const entries = staged.entries.filter(keep);
    this.staged = entries.length > 0 ? { fireAt: staged.fireAt, entries } : undefined;
  }
}
