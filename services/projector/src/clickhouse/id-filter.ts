// A Bloom filter of event_ids: "certainly not seen" or "maybe seen".
//
// Why (bench/HISTORY.md): before each insert the writer looks up which of the batch's event_ids are stored
// already (H16, writer.ts). That lookup scans the event_id column of the stored rows in the batch's
// time window, so over a replay its cost grows with the table: a replay of 1,000,000 records into a
// fresh database spent about as much ClickHouse CPU on lookups as on inserts. A replay loads the ids
// stored when it begins (replay/stored-ids.ts) and adds every id it writes, so an id the filter has
// never seen is not stored and needs no lookup. "Maybe" answers still go to the server, so a false
// positive costs a lookup, never a row.
//
// Sized for the records the caller expects at about 10 bits each (k = 7: 1% false positives), within
// [2^20, 2^31] bits (128 KiB to 256 MiB); past that the false-positive rate rises, which only brings
// lookups back.
const MIN_BITS = 2 ** 20
const MAX_BITS = 2 ** 31
const BITS_PER_ID = 10
const HASHES = 7

export class IdFilter {
  private readonly words: Uint32Array
  private readonly mask: number

  constructor(expected: number) {
    let bits = MIN_BITS
    while (bits < expected * BITS_PER_ID && bits < MAX_BITS) bits *= 2
    this.words = new Uint32Array(bits / 32)
    this.mask = bits - 1
  }

  get bits(): number {
    return this.mask + 1
  }

  mightContain(id: string): boolean {
    let h1 = hash1(id)
    const h2 = lastHash2 | 1
    for (let i = 0; i < HASHES; i++) {
      const bit = h1 & this.mask
      if ((this.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false
      h1 = (h1 + h2) >>> 0
    }
    return true
  }

  /** Adds `id` and says whether it may have been there before (every one of its bits was set). */
  checkAndAdd(id: string): boolean {
    let h1 = hash1(id)
    const h2 = lastHash2 | 1
    let present = true
    for (let i = 0; i < HASHES; i++) {
      const bit = h1 & this.mask
      const word = bit >>> 5
      const flag = 1 << (bit & 31)
      if ((this.words[word]! & flag) === 0) {
        present = false
        this.words[word]! |= flag
      }
      h1 = (h1 + h2) >>> 0
    }
    return present
  }

  /**
   * Adds the ASCII text in `buf[start, end)`: the same bits as `checkAndAdd` of that text (its bytes
   * are its UTF-16 code units), without making a string of it (stored-ids.ts reads millions).
   */
  addAscii(buf: Uint8Array, start: number, end: number): void {
    let h1 = 0x811c9dc5
    let h2 = 0x9e3779b9 ^ (end - start)
    for (let i = start; i < end; i++) {
      const c = buf[i]!
      h1 = Math.imul(h1 ^ c, 0x01000193)
      h2 = Math.imul(h2 ^ c, 0x85ebca6b)
      h2 ^= h2 >>> 13
    }
    h1 >>>= 0
    h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35)
    h2 = ((h2 ^ (h2 >>> 16)) >>> 0) | 1
    for (let i = 0; i < HASHES; i++) {
      const bit = h1 & this.mask
      this.words[bit >>> 5]! |= 1 << (bit & 31)
      h1 = (h1 + h2) >>> 0
    }
  }
}

// Two independent 32-bit hashes of the UTF-16 code units (double hashing, Kirsch-Mitzenmacher):
// FNV-1a and a multiply-xorshift mix, computed in one pass (about half the cost of two loops over
// the id: a replay hashes every record's id). hash1 returns the first and leaves
// the second in lastHash2, so no pair is allocated per id.
let lastHash2 = 0
function hash1(s: string): number {
  let h1 = 0x811c9dc5
  let h2 = 0x9e3779b9 ^ s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x85ebca6b)
    h2 ^= h2 >>> 13
  }
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35)
  lastHash2 = (h2 ^ (h2 >>> 16)) >>> 0
  return h1 >>> 0
}
