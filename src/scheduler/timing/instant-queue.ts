// Pending fires ordered by instant, handed out an instant at a time: every entry due then,
// in name order. A binary heap keeps them (as compact as one array).
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

  /** Entries held, stale ones included until they are taken or retained away. */
  get size(): number {
    return this.heap.size;
  }

  push(entry: T): void {
    this.heap.push(entry);
  }

  /** The earliest instant, if any. */
  peek(): number | undefined {
    return this.heap.peek()?.fireAt;
  }

  /** Removes and returns the earliest instant, its entries in name order, if due at `now`. */
  takeDue(now: number): Instant<T> | undefined {
    const fireAt = this.heap.peek()?.fireAt;
    if (fireAt === undefined || fireAt > now) return undefined;
    const entries: T[] = [];
    for (let top = this.heap.peek(); top?.fireAt === fireAt; top = this.heap.peek()) {
      this.heap.pop();
      entries.push(top);
    }
    if (entries.length > 1) entries.sort(byName);
    return { fireAt, entries };
  }

  /** Keeps only the entries `keep` accepts. */
  retain(keep: (entry: T) => boolean): void {
    this.heap.retain(keep);
  }
}
