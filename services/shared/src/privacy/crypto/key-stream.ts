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

/** Ingest's side: one cipher for one data key, continued record after record. */
export class KeyStream {
  private readonly cipher: Cipher
  private offset = 0

  constructor(key: Buffer) {
    this.cipher = createCipheriv(CIPHER, key, counterBlock(0))
  }

  /** offset ‖ ciphertext of the UTF-8 text. */
  seal(text: string): Buffer {
    const body = this.cipher.update(text, 'utf8')
    const out = Buffer.allocUnsafe(OFFSET_BYTES + body.length)
    out.writeUIntBE(this.offset, 0, OFFSET_BYTES)
    body.copy(out, OFFSET_BYTES)
    this.offset += body.length
    return out
  }

  /** A20: what `seal` gives for each text in turn, from one `update` for them all (Node's per-call cost
   *  is most of a small record's). */
  sealAll(texts: readonly string[]): Buffer[] {
    const body = this.cipher.update(texts.join(''), 'utf8')
    const out: Buffer[] = new Array(texts.length)
    let at = 0
    for (let i = 0; i < texts.length; i++) {
      const n = Buffer.byteLength(texts[i]!, 'utf8')
      const one = Buffer.allocUnsafe(OFFSET_BYTES + n)
      one.writeUIntBE(this.offset, 0, OFFSET_BYTES)
      body.copy(one, OFFSET_BYTES, at, at + n)
      at += n
      this.offset += n
      out[i] = one
    }
    return out
  }
}

interface Reader {
  decipher: Decipher
  offset: number
}
/** The reader's side: a decipher per key object, continued while its records arrive in stream order (a
 *  replay reads them so); any other offset starts a decipher there. Weak, so a forgotten key frees it. */
const readers = new WeakMap<Buffer, Reader>()
/** A21: a forward gap up to this many bytes is deciphered over instead of met with a new decipher: the
 *  key's records on the other event topic (events and identifies share a person's key), or bytes of a
 *  request that failed after sealing (A18). Measured (CPU a call): `update` over 1 KiB 1.2-1.8 µs, a new
 *  decipher 2-2.7 µs plus an `update` to its offset within the block, about 1 µs (BENCHMARKS.md, A21). */
const MAX_GAP = 1024
const GAP = Buffer.alloc(MAX_GAP)

export function openStream(key: Buffer, sealed: Buffer): Buffer {
  if (sealed.length < OFFSET_BYTES) throw new RangeError('sealed value too short')
  const offset = sealed.readUIntBE(0, OFFSET_BYTES)
  let r = readers.get(key)
  const gap = r === undefined ? -1 : offset - r.offset
  if (r !== undefined && gap > 0 && gap <= MAX_GAP) r.decipher.update(GAP.subarray(0, gap))
  else if (r === undefined || gap !== 0) {
    r = { decipher: createDecipheriv(CIPHER, key, counterBlock(offset)), offset }
    const skip = offset % BLOCK
    if (skip > 0) r.decipher.update(Buffer.alloc(skip))
    readers.set(key, r)
  }
  const body = r.decipher.update(sealed.subarray(OFFSET_BYTES))
  r.offset = offset + body.length
  return body
}

/** A stream key's generation (the key id's last part, A15) starts with this letter; a GCM key's is hex. */
export const STREAM_GENERATION_MARK = 's'

/** Whether records sealed under this key id use the stream format (A18) rather than A13's GCM. */
export function isStreamKeyId(keyId: string): boolean {
  return keyId[keyId.lastIndexOf('\u0000') + 1] === STREAM_GENERATION_MARK
}
