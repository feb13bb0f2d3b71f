// A bounded cache that forgets the entry used least recently (a Map keeps insertion order:
// an entry used is moved to the end, the first one is the oldest).

export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.map.size;
  }

  /** The value for `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  /** Sets `key` (the most recently used); past the limit, the least recently used goes. */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value as K);
  }
}
