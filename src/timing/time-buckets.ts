// Pending fires grouped by instant: a min-heap of distinct fire times, each holding every
// entry due then. A thousand schedules on one second are one heap item, taken in one pop
// (a heap of entries did ~20 string-comparing sifts per entry while they were due), and
// they are put in name order ahead of time rather than while they are late.
import { MinHeap } from "./min-heap.js";

export interface TimedEntry {
  fireAt: number;
  name: string;
}

export interface Bucket<T extends TimedEntry> {
  readonly fireAt: number;
  readonly entries: T[];
  /** In name order (a bucket of one always is). */
  sorted: boolean;
}

const byName = (a: TimedEntry, b: TimedEntry): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export class TimeBuckets<T extends TimedEntry> {
  private readonly heap = new MinHeap<Bucket<T>>((a, b) => a.fireAt < b.fireAt);
  private readonly byTime = new Map<number, Bucket<T>>();
  private count = 0;

  /** Entries held, stale ones included until they are taken or retained away. */
  get size(): number {
    return this.count;
  }

  push(entry: T): void {
    this.count++;
    const bucket = this.byTime.get(entry.fireAt);
    if (bucket !== undefined) {
      bucket.entries.push(entry);
      bucket.sorted = false;
      return;
    }
    // A literal of one: most instants hold one schedule, so no spare capacity is reserved.
    const fresh: Bucket<T> = { fireAt: entry.fireAt, entries: [entry], sorted: true };
    this.byTime.set(entry.fireAt, fresh);
    this.heap.push(fresh);
  }

  /** The earliest bucket, left in place. */
  peek(): Bucket<T> | undefined {
    return this.heap.peek();
  }

  /** Removes and returns the earliest bucket if it is due at `now`, its entries in name order. */
  takeDue(now: number): Bucket<T> | undefined {
    const top = this.heap.peek();
    if (top === undefined || top.fireAt > now) return undefined;
    this.heap.pop();
    this.byTime.delete(top.fireAt);
    this.count -= top.entries.length;
    TimeBuckets.sort(top);
    return top;
  }

  /** Puts a bucket's entries in name order (done ahead of its fire time by the fire queue). */
  static sort<T extends TimedEntry>(bucket: Bucket<T>): void {
    if (bucket.sorted) return;
    bucket.entries.sort(byName);
    bucket.sorted = true;
  }

  /** Keeps only the entries `keep` accepts; empty instants are dropped. */
  retain(keep: (entry: T) => boolean): void {
    const kept: T[] = [];
    for (const bucket of this.byTime.values())
      for (const entry of bucket.entries) if (keep(entry)) kept.push(entry);
    this.heap.retain(() => false);
    this.byTime.clear();
    this.count = 0;
    for (const entry of kept) this.push(entry);
  }
}
