// A Map from strings that never grows in one big step. A V8 Map doubles its table when full
// and rehashes every entry at once: at 65,536 keys that one `set` held the event loop 15-25 ms
// while a daemon loaded 100,000 schedules. Split in 64 Maps by a few of each key's characters,
// the largest step is a shard's. Keys are kept in insertion order, as a Map iterates them.

const SHARDS = 64;
/** Keys and values are kept in chunks: one array of 100,000 would grow by copying it whole. */
const CHUNK_BITS = 12;
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

  get(key: string): V | undefined {
    const i = this.shards[shardOf(key)]!.get(key);
    return i === undefined ? undefined : this.valueChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)];
  }

  has(key: string): boolean {
    return this.shards[shardOf(key)]!.has(key);
  }

  set(key: string, value: V): this {
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

  private append(key: string, value: V | undefined): void {
    if ((this.used & (CHUNK - 1)) === 0) {
      this.keyChunks.push([]);
      this.valueChunks.push([]);
    }
    this.keyChunks.at(-1)!.push(key);
    this.valueChunks.at(-1)!.push(value);
    this.used++;
  }

  /** Not while iterating: enough deletions compact the lists. */
  delete(key: string): boolean {
    const shard = this.shards[shardOf(key)]!;
    const i = shard.get(key);
    if (i === undefined) return false;
    shard.delete(key);
    this.keyChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)] = undefined;
    this.valueChunks[i >> CHUNK_BITS]![i & (CHUNK - 1)] = undefined;
    this.live--;
    if (this.used >= CHUNK && this.live < this.used / 2) this.compact();
    return true;
  }

  clear(): void {
    this.shards = NameMap.emptyShards();
    this.keyChunks = [];
    this.valueChunks = [];
    this.used = 0;
    this.live = 0;
  }

  private compact(): void {
    const entries = [...this.entries()];
    this.keyChunks = [];
    this.valueChunks = [];
    this.used = 0;
    for (const [key, value] of entries) {
      this.shards[shardOf(key)]!.set(key, this.used);
      this.append(key, value);
    }
  }

  *entries(): MapIterator<[string, V]> {
    for (let c = 0; c < this.keyChunks.length; c++) {
      const keys = this.keyChunks[c]!;
      const values = this.valueChunks[c]!;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key !== undefined) yield [key, values[i] as V];
      }
    }
  }

  *keys(): MapIterator<string> {
    for (const keys of this.keyChunks) for (const key of keys) if (key !== undefined) yield key;
  }

  *values(): MapIterator<V> {
    for (let c = 0; c < this.keyChunks.length; c++) {
      const keys = this.keyChunks[c]!;
      const values = this.valueChunks[c]!;
      for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) yield values[i] as V;
    }
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(each: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) each.call(thisArg, value, key, this);
  }
}
