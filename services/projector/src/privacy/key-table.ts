// A16: the data keys the projector holds, packed. A13 measured 125-269 B a person with Maps of strings
// and Buffers; here one key is one 48-byte slot of a single growing buffer: the first 16 bytes of the
// SHA-256 of its key id (the id itself is never kept; 2^-64 birthday odds at 4 billion keys) and the
// 32-byte data key. Open addressing with linear probing, backward-shift deletion (no deleted markers),
// grown at three quarters full, so a key costs 64 to 128 bytes of buffer (BENCHMARKS.md, bench/key-table.ts).
import { hash } from 'node:crypto'

const HASH_BYTES = 16
const KEY_BYTES = 32
const SLOT = HASH_BYTES + KEY_BYTES
const MIN_SLOTS = 1024

/** The 16 bytes of an id a slot holds; an all-zero hash marks an empty slot (an id hashing to it is
 * held one bit changed: it cannot collide with another id in any way that matters). */
export function idHash(id: string): Buffer {
  // A24: the one-shot `hash` (no Hash object a call) is the same SHA-256 at about half the CPU of
  // `createHash(...).update().digest()`; it is paid on every miss of the open cache (recent-keys.ts).
  const h = hash('sha256', id, 'buffer').subarray(0, HASH_BYTES)
  if (isZero(h, 0)) h[0] = 1
  return h
}

function isZero(b: Buffer, at: number): boolean {
  for (let i = 0; i < HASH_BYTES; i++) if (b[at + i] !== 0) return false
  return true
}

/** A33: a table's bytes in shared memory, for the threads of a replay to read without a copy each. */
export interface KeyTableImage {
  buffer: SharedArrayBuffer
  slots: number
  count: number
}

export class KeyTable {
  private slots = MIN_SLOTS
  private table: Buffer
  private count = 0
  /** A33: an image's reader; it never writes, so threads may read it at once. */
  private readOnly = false

  /** `shared`: the table's bytes live in shared memory, so its image() can be read by other threads. With
   *  `image`, a read-only table over those bytes (over()). */
  constructor(
    private readonly shared = false,
    image?: KeyTableImage,
  ) {
    if (image === undefined) {
      this.table = this.alloc(MIN_SLOTS * SLOT)
      return
    }
    this.table = Buffer.from(image.buffer)
    this.slots = image.slots
    this.count = image.count
    this.readOnly = true
  }

  /** A read-only table over an image another thread filled (and no longer changes). */
  static over(image: KeyTableImage): KeyTable {
    return new KeyTable(false, image)
  }

  /** The table's shared bytes and shape; its writer must not change it once others read it. */
  image(): KeyTableImage {
    if (!this.shared) throw new Error('only a shared key table has an image')
    return { buffer: this.table.buffer as SharedArrayBuffer, slots: this.slots, count: this.count }
  }

  get size(): number {
    return this.count
  }

  /** Bytes of buffer the table holds (what a key costs, with the table's free slots). */
  get bytes(): number {
    return this.table.length
  }

  /** A copy of the data key stored under `id`, or undefined. */
  get(id: string): Buffer | undefined {
    const at = this.find(idHash(id))
    return at < 0 ? undefined : Buffer.from(this.table.subarray(at * SLOT + HASH_BYTES, (at + 1) * SLOT))
  }

  /** `hash`: idHash(id), when the caller has it already (A34: an id looked up in two tables). */
  has(id: string, hash = idHash(id)): boolean {
    return this.find(hash) >= 0
  }

  set(id: string, key: Buffer, hash = idHash(id)): void {
    this.writable()
    if (key.length !== KEY_BYTES) throw new RangeError(`a data key is ${KEY_BYTES} bytes, not ${key.length}`)
    if ((this.count + 1) * 4 > this.slots * 3) this.grow()
    this.put(hash, key)
  }

  /** A tombstone on the keys topic: the key is erased (A12) or its month expired (H60). */
  delete(id: string, hash = idHash(id)): boolean {
    this.writable()
    const at = this.find(hash)
    if (at < 0) return false
    this.removeAt(at)
    return true
  }

  private writable(): void {
    if (this.readOnly) throw new Error('a key table read from an image is read-only')
  }

  private alloc(bytes: number): Buffer {
    return this.shared ? Buffer.from(new SharedArrayBuffer(bytes)) : Buffer.alloc(bytes)
  }

  private home(hash: Buffer): number {
    return hash.readUInt32LE(0) & (this.slots - 1)
  }

  private find(hash: Buffer): number {
    for (let i = this.home(hash); ; i = (i + 1) & (this.slots - 1)) {
      if (isZero(this.table, i * SLOT)) return -1
      if (this.table.compare(hash, 0, HASH_BYTES, i * SLOT, i * SLOT + HASH_BYTES) === 0) return i
    }
  }

  private put(hash: Buffer, key: Buffer): void {
    let i = this.home(hash)
    for (; !isZero(this.table, i * SLOT); i = (i + 1) & (this.slots - 1))
      if (this.table.compare(hash, 0, HASH_BYTES, i * SLOT, i * SLOT + HASH_BYTES) === 0) break
    if (isZero(this.table, i * SLOT)) this.count++
    hash.copy(this.table, i * SLOT)
    key.copy(this.table, i * SLOT + HASH_BYTES)
  }

  /** Backward-shift deletion: each later slot of the run moves into the hole when its home allows it. */
  private removeAt(hole: number): void {
    const mask = this.slots - 1
    this.table.fill(0, hole * SLOT, (hole + 1) * SLOT)
    this.count--
    for (let j = (hole + 1) & mask; !isZero(this.table, j * SLOT); j = (j + 1) & mask) {
      const home = this.table.readUInt32LE(j * SLOT) & mask
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j
      if (stays) continue
      this.table.copy(this.table, hole * SLOT, j * SLOT, (j + 1) * SLOT)
      this.table.fill(0, j * SLOT, (j + 1) * SLOT)
      hole = j
    }
  }

  private grow(): void {
    const old = this.table
    const oldSlots = this.slots
    this.slots *= 2
    this.table = this.alloc(this.slots * SLOT)
    this.count = 0
    for (let i = 0; i < oldSlots; i++) {
      if (isZero(old, i * SLOT)) continue
      this.put(old.subarray(i * SLOT, i * SLOT + HASH_BYTES), old.subarray(i * SLOT + HASH_BYTES, (i + 1) * SLOT))
    }
  }
}
