// A Map from strings that never grows in one big step. A V8 Map doubles its table when full
// and rehashes every entry at once: at 65,536 keys that one `set` held the event loop 15-25 ms
// while a daemon loaded 100,000 schedules. Split in 16 Maps by a few of each key's characters,
// the largest step is a shard's. Keys are kept in insertion order, as a Map iterates them;
// unlike a Map's, an iterator sees the map as it was when it began (keys added later are not
// visited), so do not change a map while iterating it.

// 16 shards and chunks of 32,768: at 100,000 keys a shard's table and a chunk are each over
// 128 KiB, so V8 keeps them in its large-object space, where a scavenge never copies them (64
// shards of small tables made every scavenge of a reload copy them: 24-36 ms against 4-9 ms).
const SHARDS = 16;
/** Keys and values are kept in chunks: one array of 100,000 would grow by copying it whole. */
const CHUNK_BITS = 15;
const CHUNK = 1 << CHUNK_BITS;

/** A shard from four characters and the length: cheap, and spread for names and patterns. */
function shardOf(key: string): number {
  const n = key.length;
  if (n === 0) return 0;
  const h =
    key.charCodeAt(0) * 961 +
    key.charCodeAt(n >> 1) * 31 +
    key.charCodeAt(n - 1) * 7 +
    key.charCodeAt(n > 1 ? n - 2 : 0) +
    n * 3;
  return h & (SHARDS - 1);
}

export class NameMap<V> implements Map<string, V> {
  /** Key → its place in insertion order. */
  private shards: Map<string, number>[] = NameMap.emptyShards();
  /** Keys and values by place, CHUNK to a chunk; a deleted key leaves a hole (undefined). */
  private keyChunks: (string | undefined)[][] = [];
  private valueChunks: (V | undefined)[][] = [];
  /** Places used (holes included). */
  private used = 0;
  private live = 0;
  private changes = 0;

  readonly [Symbol.toStringTag] = "NameMap";

  constructor(entries?: Iterable<readonly [string, V]>) {
    if (entries !== undefined) for (const [k, v] of entries) this.set(k, v);
  }

  private static emptyShards(): Map<string, number>[] {
    return Array.from({ length: SHARDS }, () => new Map<string, number>());
  }

  get size(): number {
    return this.live;
  }

  /** Counts the changes made to the map: a cache of something derived from it compares it. */
  get revision(): number {
    return this.changes;
  }

  get(key: string): V | undefined {
    const i = this.shards[shardOf(key)]!.get(key);
    return i === undefined ? undefined : this.valueChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)];
  }

  has(key: string): boolean {
    return this.shards[shardOf(key)]!.has(key);
  }

  set(key: string, value: V): this {
    this.changes++;
    const shard = this.shards[shardOf(key)]!;
    const i = shard.get(key);
    if (i !== undefined) {
      this.valueChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)] = value; // a Map keeps its place
      return this;
    }
    shard.set(key, this.used);
    this.append(key, value);
    this.live++;
    return this;
  }

  /**
   * Sets `key` to `value` if it has no value yet, and returns the value it had (undefined
   * when it was set): one hash lookup less than `get` then `set`.
   */
  setIfAbsent(key: string, value: V): V | undefined {
    const shard = this.shards[shardOf(key)]!;
    const i = shard.get(key);
    if (i !== undefined) return this.valueChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)];
    this.changes++;
    shard.set(key, this.used);
    this.append(key, value);
    this.live++;
    return undefined;
  }

  private append(key: string, value: V | undefined): void {
    const at = this.used & (CHUNK - 1);
    if (at === 0) {
      // Whole chunks at once: an array grown by push is copied as it grows.
      this.keyChunks.push(new Array<string | undefined>(CHUNK));
      this.valueChunks.push(new Array<V | undefined>(CHUNK));
    }
    this.keyChunks[this.keyChunks.length - 1]![at] = key;
    this.valueChunks[this.valueChunks.length - 1]![at] = value;
    this.used++;
  }

  /** Not while iterating: enough deletions compact the lists. */
  delete(key: string): boolean {
    const shard = this.shards[shardOf(key)]!;
    const i = shard.get(key);
    if (i === undefined) return false;
    this.changes++;
    shard.delete(key);
    this.keyChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)] = undefined;
    this.valueChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)] = undefined;
    this.live--;
    if (this.used >= CHUNK && this.live < this.used / 2) this.compact();
    return true;
  }

  clear(): void {
    this.changes++;
    this.shards = NameMap.emptyShards();
    this.keyChunks = [];
    this.valueChunks = [];
    this.used = 0;
    this.live = 0;
  }

  private compact(): void {
    const entries = [...this.entries()];
    for (const shard of this.shards) shard.clear();
    this.keyChunks = [];
    this.valueChunks = [];
    this.used = 0;
    for (const [key, value] of entries) {
      this.shards[shardOf(key)]!.set(key, this.used);
      this.append(key, value);
    }
  }

  entries(): MapIterator<[string, V]> {
    return new Places(this.keyChunks, this.valueChunks, this.used, (k, v) => [k, v as V]);
  }

  keys(): MapIterator<string> {
    return new Places(this.keyChunks, this.valueChunks, this.used, (k) => k);
  }

  values(): MapIterator<V> {
    return new Places(this.keyChunks, this.valueChunks, this.used, (_, v) => v as V);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(each: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) each.call(thisArg, value, key, this);
  }
}

/**
 * An iterator over the places in use, skipping holes. Not a generator, and one result object
 * for all its steps: iterating 100,000 schedules allocated ~4 MB of step results each time.
 */
class Places<K, V, T> implements MapIterator<T> {
  private place = 0;
  /** Reused for every step (for-of, spread and Array.from read it at once). */
  private readonly result: { value: T | undefined; done: boolean } = {
    value: undefined,
    done: false,
  };

  constructor(
    private readonly keyChunks: readonly (K | undefined)[][],
    private readonly valueChunks: readonly (V | undefined)[][],
    private readonly used: number,
    private readonly project: (key: K, value: V | undefined) => T,
  ) {}

  next(): IteratorResult<T, undefined> {
    const r = this.result;
    while (this.place < this.used) {
      const p = this.place++;
      const key = this.keyChunks[p >> CHUNK_BITS]![p & (CHUNK - 1)];
      if (key === undefined) continue;
      r.value = this.project(key, this.valueChunks[p >> CHUNK_BITS]![p & (CHUNK - 1)]);
      return r as IteratorResult<T, undefined>;
    }
    r.value = undefined;
    r.done = true;
    return r as IteratorResult<T, undefined>;
  }

  [Symbol.iterator](): this {
    return this;
  }
}
