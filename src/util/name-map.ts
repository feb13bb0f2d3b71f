// A read-mostly map from names to values for sets of 100,000, built once per load. A Map
// that grows past 65,536 entries rehashes them all in one go (~16 ms on a small VM, in one
// step of a sliced load); this one spreads its keys over shards by a hash of the name, so a
// shard never holds more than a few thousand, and keeps values in insertion order in an
// array, so iterating it is as cheap as iterating an array.

const SHARDS = 64;

/** FNV-1a over the UTF-16 code units, folded to a shard. */
function shardOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

export class NameMap<V> implements ReadonlyMap<string, V> {
  private readonly shards: Map<string, number>[] = Array.from({ length: SHARDS }, () => new Map());
  private readonly names: string[] = [];
  private readonly values_: V[] = [];

  get size(): number {
    return this.names.length;
  }

  get(name: string): V | undefined {
    const at = this.shards[shardOf(name)]!.get(name);
    return at === undefined ? undefined : this.values_[at];
  }

  has(name: string): boolean {
    return this.shards[shardOf(name)]!.has(name);
  }

  /** Adds `name` last, or replaces its value where it stands. No deletion: build a new one. */
  set(name: string, value: V): this {
    const shard = this.shards[shardOf(name)]!;
    const at = shard.get(name);
    if (at !== undefined) this.values_[at] = value;
    else {
      shard.set(name, this.names.length);
      this.names.push(name);
      this.values_.push(value);
    }
    return this;
  }

  forEach(each: (value: V, name: string, map: ReadonlyMap<string, V>) => void): void {
    for (let i = 0; i < this.names.length; i++) each(this.values_[i]!, this.names[i]!, this);
  }

  *entries(): MapIterator<[string, V]> {
    for (let i = 0; i < this.names.length; i++) yield [this.names[i]!, this.values_[i]!];
  }

  *keys(): MapIterator<string> {
    yield* this.names;
  }

  *values(): MapIterator<V> {
    yield* this.values_;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}
