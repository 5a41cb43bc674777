// A21: the data keys the decode step asked for lately, each the same Buffer for as long as it is held, so
// the stream reader's continued decipher (key-stream.ts, A18: one per key object, kept on it) is found
// again for the key's next record instead of paying `createDecipheriv` a record. Bounded
// (PRIVACY_OPEN_CACHE_ENTRIES): each held key keeps a decipher context alive, which the packed table (A16)
// could not afford for every key; a key dropped here frees its decipher with its Buffer.
//
// Two generations instead of a strict LRU: a hit costs one Map lookup (a strict LRU re-inserts on every
// hit); when the young map is full it becomes the old one and the old one is dropped, and a key found in
// the old map moves back to the young. So a key asked for at least once per half the size stays held.
export class RecentKeys {
  private young = new Map<string, Buffer>()
  private old = new Map<string, Buffer>()
  private readonly half: number

  constructor(entries: number) {
    this.half = Math.max(1, Math.floor(entries / 2))
  }

  /** Keys held now (at most the size given, rounded down to even). */
  get size(): number {
    return this.young.size + this.old.size
  }

  get(id: string): Buffer | undefined {
    const young = this.young.get(id)
    if (young !== undefined) return young
    const old = this.old.get(id)
    if (old === undefined) return undefined
    this.old.delete(id)
    this.add(id, old)
    return old
  }

  add(id: string, key: Buffer): void {
    if (this.young.size >= this.half) {
      this.old = this.young
      this.young = new Map()
    }
    this.young.set(id, key)
  }

  /** A tombstone or a new value for `id` on the keys topic: the held Buffer must not be returned again. It
   *  is returned, for its reader to be dropped and its bytes zeroed (A27). */
  delete(id: string): Buffer | undefined {
    const held = this.young.get(id) ?? this.old.get(id)
    this.young.delete(id)
    this.old.delete(id)
    return held
  }
}

/**
 * A24: the open cache of a replay. A replay is a batch process with its own memory: it holds every key on
 * the keys topic once opened (twice their number, so a generation never turns over while every key fits
 * the young one), so a person's later records continue the decipher however far apart they come; at most
 * `cap` (REPLAY_OPEN_CACHE_ENTRIES: each held key costs about 1.8 kB of RSS), never fewer than the live
 * projector's `live` (PRIVACY_OPEN_CACHE_ENTRIES).
 */
export function replayOpenEntries(keys: number, live: number, cap: number): number {
  return Math.max(live, Math.min(cap, 2 * keys))
}
