// A binary min-heap: the fire queue's ordering of thousands of pending slots in one array.

export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** Keeps only the items `keep` accepts (rebuilding the heap order). */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    this.items.length = 0;
    for (const item of kept) this.push(item);
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < items.length && this.less(items[l]!, items[min]!)) min = l;
      if (r < items.length && this.less(items[r]!, items[min]!)) min = r;
      if (min === i) return top;
      [items[i], items[min]] = [items[min]!, items[i]!];
      i = min;
    }
  }
}
