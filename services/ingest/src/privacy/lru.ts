// A bounded map that forgets the least recently used entry (A15: the key and pseudonym caches).
// A Map keeps insertion order, so re-inserting on a hit makes the first key the least recent.
export class Lru<K, V> {
  private readonly map = new Map<K, V>()

  constructor(private readonly max: number) {}

  get(k: K): V | undefined {
    const v = this.map.get(k)
    if (v === undefined) return undefined
    this.map.delete(k)
    this.map.set(k, v)
    return v
  }

  set(k: K, v: V): void {
    this.map.delete(k)
    this.map.set(k, v)
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K)
  }

  delete(k: K): void {
    this.map.delete(k)
  }

  /** Deletes `k` only while it still maps to `v` (a newer value set meanwhile stays). */
  deleteIf(k: K, v: V): void {
    if (this.map.get(k) === v) this.map.delete(k)
  }

  get size(): number {
    return this.map.size
  }
}
