// A18: the stream format of a sealed body. One AES-256-CTR stream per data key: ingest keeps one cipher
// per held key and continues it for every record of that key, so a record costs one `update` instead of
// a `createCipheriv`, a nonce and a tag (A15's measured cost). A data key is random, minted by one ingest
// instance and never looked up again (A15), so one writer owns each stream and no stream position is ever
// used twice under a key; the counter starts at zero for that reason. What CTR gives up against GCM: no
// per-record authentication (a writer on the broker can forge records anyway; the threat is erasure and
// disk theft, A12).
import { type Cipher, createCipheriv, createDecipheriv, type Decipher } from 'node:crypto'

const CIPHER = 'aes-256-ctr'
const BLOCK = 16
/** The body starts with the record's byte offset in its key's stream, big-endian. */
export const OFFSET_BYTES = 6

function counterBlock(offset: number): Buffer {
  const iv = Buffer.alloc(BLOCK)
  iv.writeUIntBE(Math.floor(offset / BLOCK), BLOCK - OFFSET_BYTES, OFFSET_BYTES)
  return iv
}

/** A25: a held key's keystream (its cipher's output for zeros) is made ahead, so its records share one
 *  `update` (Node's per-call cost, not AES, is most of a small record's): each time twice what it made the
 *  time before, at most this many bytes (the first time what the record needs: a key used once costs what
 *  it cost before). Each held key keeps up to this much. */
const AHEAD_MAX = 2048
const ZEROS = Buffer.alloc(AHEAD_MAX)
/** A25: bodies are written in place in one shared slab and handed out as views of it (as Node's own pool
 *  does): the text is written at the place in its word where its keystream is in the key's, enciphered
 *  word by word in place, and its offset written before it; no intermediate copy. */
const SLAB_BYTES = 64 * 1024
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
let slab32 = new Uint32Array(slab.buffer, slab.byteOffset, slab.length >>> 2)
let used = 0

function newSlab(room: number): void {
  slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, room + 4))
  slab32 = new Uint32Array(slab.buffer, slab.byteOffset, slab.length >>> 2)
  used = 0
}

/** Ingest's side: one cipher for one data key, continued record after record. A25: a body is the text XOR
 *  the keystream at its offset, the bytes one `update` of the text would give (A18's format unchanged). */
export class KeyStream {
  private readonly cipher: Cipher
  /** Stream position of the next record's first byte. */
  private offset = 0
  /** Keystream made ahead, as words (one view a key: a byte view is made only to refill it): position
   *  `offset` is at byte `at`, always at the same place in its word. */
  private keys32 = new Uint32Array(0)
  private at = 0
  /** Index in `keys` after its last keystream byte. */
  private made = 0
  /** Bytes made by the last `update`. */
  private chunk = 0

  constructor(key: Buffer) {
    this.cipher = createCipheriv(CIPHER, key, counterBlock(0))
  }

  /** offset ‖ ciphertext of the UTF-8 text. */
  seal(text: string): Buffer {
    const room = text.length * 3 + OFFSET_BYTES + 3
    if (slab.length - used < room) newSlab(room)
    // The text starts at the place in its word where its keystream starts in `keys`.
    const start = used + ((this.at - used - OFFSET_BYTES) & 3)
    const body = start + OFFSET_BYTES
    const n = slab.write(text, body)
    if (this.made - this.at < n) this.makeAhead(n)
    const keys32 = this.keys32
    const k = this.at >>> 2
    const b = body >>> 2
    const words = ((body & 3) + n + 3) >>> 2
    for (let w = 0; w < words; w++) slab32[b + w]! ^= keys32[k + w]!
    // After the XOR, whose first word may hold the offset's last bytes.
    slab.writeUIntBE(this.offset, start, OFFSET_BYTES)
    this.at += n
    this.offset += n
    used = body + n
    return slab.subarray(start, used)
  }

  /** A20: what `seal` gives for each text in turn, with one `update` for them all when they are ASCII
   *  (a UTF-8 text has at least a byte a UTF-16 unit: that much is made ahead first). */
  sealAll(texts: readonly string[]): Buffer[] {
    let least = 0
    for (let i = 0; i < texts.length; i++) least += texts[i]!.length
    if (this.made - this.at < least) this.makeAhead(least)
    const out: Buffer[] = new Array(texts.length)
    for (let i = 0; i < texts.length; i++) out[i] = this.seal(texts[i]!)
    return out
  }

  /** Keeps the keystream not used yet (at the same place in its word) and makes more with one `update`:
   *  at least `n` bytes in all, and twice the last `update`'s up to AHEAD_MAX. */
  private makeAhead(n: number): void {
    const left = this.made - this.at
    const target = Math.max(n, Math.min(AHEAD_MAX, this.chunk * 2))
    const more = target - left
    const shift = this.at & 3
    const size = (shift + target + 3) & ~3
    let keys = new Uint8Array(this.keys32.buffer)
    if (keys.length < size || (keys.length > AHEAD_MAX + 4 && size <= AHEAD_MAX + 4)) {
      const old = keys
      keys = new Uint8Array(Math.max(size, Math.min(AHEAD_MAX + 4, size * 2)))
      keys.set(old.subarray(this.at, this.made), shift)
      this.keys32 = new Uint32Array(keys.buffer)
    } else keys.copyWithin(shift, this.at, this.made)
    keys.set(this.cipher.update(more <= AHEAD_MAX ? ZEROS.subarray(0, more) : Buffer.alloc(more)), shift + left)
    this.at = shift
    this.made = shift + target
    this.chunk = more
  }
}

interface Reader {
  decipher: Decipher
  offset: number
}
/** The reader's side: a decipher per key object, continued while its records arrive in stream order (a
 *  replay reads them so); any other offset starts a decipher there. Kept on the key object itself, so a
 *  forgotten key frees it, and a record finds it without a lookup in a table of every held key (a
 *  WeakMap's was a cache miss a record once the keys outnumber the caches, and its entries cost every
 *  full collection a pass of their own). */
const READER = Symbol('stream reader')
type ReadKey = Buffer & { [READER]?: Reader }
/** A21: a forward gap up to this many bytes is deciphered over instead of met with a new decipher: the
 *  key's records on the other event topic (events and identifies share a person's key), or bytes of a
 *  request that failed after sealing (A18). Measured (CPU a call): `update` over 1 KiB 1.2-1.8 µs, a new
 *  decipher 2-2.7 µs plus an `update` to its offset within the block, about 1 µs (BENCHMARKS.md, A21). */
const MAX_GAP = 1024
const GAP = Buffer.alloc(MAX_GAP)

/** The plaintext of the sealed body `sealed` holds in [start, end) (all of it by default: the replay's
 *  transcoder passes the record's bytes and the body's place in them, and no view is made of the body). */
export function openStream(key: Buffer, sealed: Buffer, start = 0, end = sealed.length): Buffer {
  if (end - start < OFFSET_BYTES) throw new RangeError('sealed value too short')
  const offset = sealed.readUIntBE(start, OFFSET_BYTES)
  let r = (key as ReadKey)[READER]
  const gap = r === undefined ? -1 : offset - r.offset
  if (r !== undefined && gap > 0 && gap <= MAX_GAP) r.decipher.update(GAP.subarray(0, gap))
  else if (r === undefined || gap !== 0) {
    r = { decipher: createDecipheriv(CIPHER, key, counterBlock(offset)), offset }
    const skip = offset % BLOCK
    if (skip > 0) r.decipher.update(Buffer.alloc(skip))
    ;(key as ReadKey)[READER] = r
  }
  const body = r.decipher.update(sealed.subarray(start + OFFSET_BYTES, end))
  r.offset = offset + body.length
  return body
}

/** A27: a key dropped for a tombstone (or a new value of its id): its continued decipher is let go and its
 *  bytes are zeroed, so it opens no record again, even through a reference taken before the tombstone. */
export function forgetStream(key: Buffer): void {
  ;(key as ReadKey)[READER] = undefined
  key.fill(0)
}

/** A stream key's generation (the key id's last part, A15) starts with this letter; a GCM key's is hex. */
export const STREAM_GENERATION_MARK = 's'

/** Whether records sealed under this key id use the stream format (A18) rather than A13's GCM. */
export function isStreamKeyId(keyId: string): boolean {
  return keyId[keyId.lastIndexOf('\u0000') + 1] === STREAM_GENERATION_MARK
}
