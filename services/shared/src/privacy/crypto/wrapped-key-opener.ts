// A36: opening wrapped data keys many at a time. A wrapped key is A13's AES-256-GCM of a 32-byte data key
// under a master key, its id the AAD (data-key.ts: nonce ‖ ciphertext ‖ tag). Opened one `createDecipheriv`
// each, most of a key's cost was Node's and OpenSSL's set-up of a GCM context (the master's key schedule and
// GHASH table again for every key), and every key a starting projector or replay reads is opened
// (A16, A33, A34). GCM with a 96-bit nonce is AES-CTR plus a GHASH tag (NIST SP 800-38D), so here:
//   - AES stays OpenSSL's: one AES-256-ECB context of the master, kept, makes the three blocks each key
//     needs (E(J0) masks the tag, E(J0+1) and E(J0+2) the key) for a whole batch in one `update`;
//   - GHASH, a product in GF(2^128) by the fixed H = E(0), is computed here with 8-bit tables of H made
//     once per master (Shoup's method, as OpenSSL's and mbed TLS's table code does);
//   - the tag is compared in full, with no early exit.
// Any other shape (a nonce or key of another length) goes to data-key.ts's `open`, Node's GCM: the two
// agree on every value, which crypto/wrapped-key-opener.test.ts checks against Node's GCM. Table lookups
// indexed by secret-derived bytes can leak through a shared CPU cache; the threat A12 guards against is a
// copy of the disks or of the topics, not a process on the same host.
import { type Cipher, createCipheriv } from 'node:crypto'
import { DATA_KEY_BYTES, NONCE_BYTES, open, TAG_BYTES } from './data-key.js'

const BLOCK = 16
/** The shape every wrapped key ingest writes has. */
const WRAPPED_BYTES = NONCE_BYTES + DATA_KEY_BYTES + TAG_BYTES
/** AES blocks a key needs: the tag's mask and the key's two. */
const BLOCKS_A_KEY = 3
/** Keys whose blocks one `update` makes (48 B each): the ECB input stays small and is reused. */
const BATCH = 1024
/** GCM's reduction constant, x^128 = x^7 + x^2 + x + 1, in its reflected bit order (SP 800-38D, 6.3). */
const R = 0xe1000000

/** One 128-bit value as four big-endian 32-bit words. */
type Words = [number, number, number, number]

/** v · x in GCM's bit order: a shift towards the last byte, reduced. */
function timesX(v: Words): Words {
  const carry = v[3] & 1
  return [
    (v[0] >>> 1) ^ (carry ? R : 0),
    (v[1] >>> 1) | (v[0] << 31),
    (v[2] >>> 1) | (v[1] << 31),
    (v[3] >>> 1) | (v[2] << 31),
  ]
}

/** What shifting a value 8 bits on (· x^8) adds to its first word for the byte `r` it shifts out. */
const REDUCE_BYTE = (() => {
  const table = new Int32Array(256)
  for (let r = 0; r < 256; r++) {
    let v: Words = [0, 0, 0, r]
    for (let i = 0; i < 8; i++) v = timesX(v)
    table[r] = v[0]
  }
  return table
})()

export class WrappedKeyOpener {
  private readonly ecb: Cipher
  /** b · H for every byte b, one array a word (b's first bit is x^0, as GCM reads a block). */
  private readonly h0 = new Int32Array(256)
  private readonly h1 = new Int32Array(256)
  private readonly h2 = new Int32Array(256)
  private readonly h3 = new Int32Array(256)
  /** The counter blocks of a batch, then the AAD of one key: reused. */
  private readonly blocks = Buffer.alloc(BATCH * BLOCKS_A_KEY * BLOCK)
  private aad = Buffer.alloc(256)
  private aadView: DataView
  /** The running GHASH value. */
  private z0 = 0
  private z1 = 0
  private z2 = 0
  private z3 = 0

  constructor(private readonly master: Buffer) {
    this.ecb = createCipheriv('aes-256-ecb', master, null)
    this.ecb.setAutoPadding(false)
    const h = this.ecb.update(Buffer.alloc(BLOCK))
    const table: Words[] = new Array(256)
    table[0] = [0, 0, 0, 0]
    table[0x80] = [h.readInt32BE(0), h.readInt32BE(4), h.readInt32BE(8), h.readInt32BE(12)]
    for (let b = 0x40; b >= 1; b >>= 1) table[b] = timesX(table[b << 1]!)
    for (let high = 2; high < 256; high <<= 1)
      for (let low = 1; low < high; low++) {
        const a = table[high]!
        const c = table[low]!
        table[high + low] = [a[0] ^ c[0], a[1] ^ c[1], a[2] ^ c[2], a[3] ^ c[3]]
      }
    for (let b = 0; b < 256; b++) {
      const v = table[b]!
      this.h0[b] = v[0]
      this.h1[b] = v[1]
      this.h2[b] = v[2]
      this.h3[b] = v[3]
    }
    h.fill(0)
    this.aadView = new DataView(this.aad.buffer, this.aad.byteOffset, this.aad.length)
  }

  /** The data key `wrapped` holds, or undefined when this master did not wrap it for `id`. */
  open(id: string, wrapped: Buffer): Buffer | undefined {
    const out: (Buffer | undefined)[] = [undefined]
    this.openAll([id], [wrapped], out)
    return out[0]
  }

  /** out[i]: the data key wrapped[i] holds for ids[i], or undefined when this master did not wrap it (or
   *  wrapped[i] is null: nothing to open). */
  openAll(ids: readonly string[], wrapped: readonly (Buffer | null)[], out: (Buffer | undefined)[]): void {
    for (let from = 0; from < ids.length; from += BATCH) {
      const to = Math.min(ids.length, from + BATCH)
      const blocks = this.blocks
      let n = 0
      for (let i = from; i < to; i++) {
        const w = wrapped[i]
        if (w === null || w.length !== WRAPPED_BYTES) continue
        for (let c = 1; c <= BLOCKS_A_KEY; c++, n += BLOCK) {
          for (let b = 0; b < NONCE_BYTES; b++) blocks[n + b] = w[b]!
          blocks.writeUInt32BE(c, n + NONCE_BYTES)
        }
      }
      const stream = n > 0 ? this.ecb.update(blocks.subarray(0, n)) : blocks
      let at = 0
      for (let i = from; i < to; i++) {
        const w = wrapped[i]
        if (w === null || w.length !== WRAPPED_BYTES) {
          out[i] = w === null ? undefined : openOther(this.master, ids[i]!, w)
          continue
        }
        out[i] = this.openOne(ids[i]!, w, stream, at)
        at += BLOCKS_A_KEY * BLOCK
      }
      stream.fill(0)
    }
  }

  private openOne(id: string, w: Buffer, stream: Buffer, at: number): Buffer | undefined {
    // GHASH of the AAD (the id, zero-padded), the ciphertext, then both lengths in bits.
    const aadBytes = Buffer.byteLength(id, 'utf8')
    const padded = (aadBytes + BLOCK - 1) & ~(BLOCK - 1)
    if (padded > this.aad.length) this.growAad(padded)
    this.aad.write(id, 0, 'utf8')
    this.aad.fill(0, aadBytes, padded)
    const aad = this.aadView
    this.z0 = this.z1 = this.z2 = this.z3 = 0
    for (let p = 0; p < padded; p += BLOCK)
      this.mix(aad.getInt32(p), aad.getInt32(p + 4), aad.getInt32(p + 8), aad.getInt32(p + 12))
    for (let p = NONCE_BYTES; p < NONCE_BYTES + DATA_KEY_BYTES; p += BLOCK)
      this.mix(w.readInt32BE(p), w.readInt32BE(p + 4), w.readInt32BE(p + 8), w.readInt32BE(p + 12))
    const aadBits = aadBytes * 8
    this.mix(Math.floor(aadBits / 2 ** 32), aadBits | 0, 0, DATA_KEY_BYTES * 8)
    // The tag: E(J0) XOR the GHASH, compared word by word without an early exit.
    const t = NONCE_BYTES + DATA_KEY_BYTES
    const diff =
      (this.z0 ^ stream.readInt32BE(at) ^ w.readInt32BE(t)) |
      (this.z1 ^ stream.readInt32BE(at + 4) ^ w.readInt32BE(t + 4)) |
      (this.z2 ^ stream.readInt32BE(at + 8) ^ w.readInt32BE(t + 8)) |
      (this.z3 ^ stream.readInt32BE(at + 12) ^ w.readInt32BE(t + 12))
    if (diff !== 0) return undefined
    const key = Buffer.allocUnsafe(DATA_KEY_BYTES)
    for (let b = 0; b < DATA_KEY_BYTES; b++) key[b] = w[NONCE_BYTES + b]! ^ stream[at + BLOCK + b]!
    return key
  }

  /** z = (z XOR x) · H: Horner's rule over x's bytes, last first, a shift by 8 bits and a table each. */
  private mix(x0: number, x1: number, x2: number, x3: number): void {
    x0 ^= this.z0
    x1 ^= this.z1
    x2 ^= this.z2
    x3 ^= this.z3
    const h0 = this.h0
    const h1 = this.h1
    const h2 = this.h2
    const h3 = this.h3
    let b = x3 & 0xff
    let a0 = h0[b]!
    let a1 = h1[b]!
    let a2 = h2[b]!
    let a3 = h3[b]!
    for (let i = 14; i >= 0; i--) {
      const r = a3 & 0xff
      a3 = (a3 >>> 8) | (a2 << 24)
      a2 = (a2 >>> 8) | (a1 << 24)
      a1 = (a1 >>> 8) | (a0 << 24)
      a0 = (a0 >>> 8) ^ REDUCE_BYTE[r]!
      const word = i < 4 ? x0 : i < 8 ? x1 : i < 12 ? x2 : x3
      b = (word >>> (24 - 8 * (i & 3))) & 0xff
      a0 ^= h0[b]!
      a1 ^= h1[b]!
      a2 ^= h2[b]!
      a3 ^= h3[b]!
    }
    this.z0 = a0
    this.z1 = a1
    this.z2 = a2
    this.z3 = a3
  }

  private growAad(bytes: number): void {
    this.aad = Buffer.alloc(bytes * 2)
    this.aadView = new DataView(this.aad.buffer, this.aad.byteOffset, this.aad.length)
  }
}

/** A wrapped value of another shape than ingest writes: Node's GCM decides. */
function openOther(master: Buffer, id: string, wrapped: Buffer): Buffer | undefined {
  try {
    return open(master, wrapped, Buffer.from(id, 'utf8'))
  } catch {
    return undefined
  }
}
