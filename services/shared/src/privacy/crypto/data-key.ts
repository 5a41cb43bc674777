// A13: one AES-256-GCM data key per person and received month. Dropping a month's keys makes that month
// unreadable (per-account retention), tombstoning all of a person's keys erases them (A12 stage 2).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { STREAM_GENERATION_MARK } from './key-stream.js'

export const DATA_KEY_BYTES = 32
export const NONCE_BYTES = 12
export const TAG_BYTES = 16
const CIPHER = 'aes-256-gcm'

export function newDataKey(): Buffer {
  return randomBytes(DATA_KEY_BYTES)
}

/** YYYY-MM of the received time (UTC): the period a data key covers. */
export function keyMonth(receivedAtMs: number): string {
  // Every record of a month asks for the same text: kept with the month's bounds (A18: per-record cost).
  if (receivedAtMs >= month.from && receivedAtMs < month.to) return month.text
  const d = new Date(receivedAtMs)
  const text = d.toISOString().slice(0, 7)
  month = {
    from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    text,
  }
  return text
}
let month = { from: 0, to: 0, text: '' }

/** The keys topic's record key and the `enc.key_id` of a record: account, pseudonym and month. */
export function dataKeyId(accountId: string, pseudonym: string, month: string): string {
  return `${accountId}\u0000${pseudonym}\u0000${month}`
}

/** Bytes of randomness in a key id's generation (A15): two keys of one person-month, minted by two
 *  instances, by one instance after it forgot the person, or by a rerun of reencrypt, never share an id. */
const GENERATION_BYTES = 4

/** A20: the one rule for a new key's id, ingest's and reencrypt's alike: the person-month (dataKeyId), then a
 *  fresh generation marked as the stream format (A18), the only format minted now. */
export function newKeyId(accountId: string, pseudonym: string, month: string): string {
  return `${dataKeyId(accountId, pseudonym, month)}\u0000${STREAM_GENERATION_MARK}${randomBytes(GENERATION_BYTES).toString('hex')}`
}

/** A new data key of the person-month: its id, its bytes, and its copy wrapped for the keys topic. */
export function mintDataKey(
  masterKey: Buffer,
  accountId: string,
  pseudonym: string,
  month: string,
): { id: string; bytes: Buffer; wrapped: Buffer } {
  const id = newKeyId(accountId, pseudonym, month)
  const bytes = newDataKey()
  return { id, bytes, wrapped: wrapDataKey(masterKey, id, bytes) }
}

/** nonce ‖ ciphertext ‖ tag, one buffer, so a field of type bytes carries it. */
export function seal(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv(CIPHER, key, nonce)
  cipher.setAAD(aad)
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return Buffer.concat([nonce, body, cipher.getAuthTag()])
}

/** Throws if the key, the AAD or any byte of the sealed buffer is not the one sealed. */
export function open(key: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new RangeError('sealed value too short')
  const nonce = sealed.subarray(0, NONCE_BYTES)
  const tag = sealed.subarray(sealed.length - TAG_BYTES)
  const decipher = createDecipheriv(CIPHER, key, nonce)
  decipher.setAAD(aad)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()])
}

/** The master key wraps data keys; the key id is the AAD, so a wrapped key cannot be moved to another person. */
export function wrapDataKey(masterKey: Buffer, keyId: string, dataKey: Buffer): Buffer {
  return seal(masterKey, dataKey, Buffer.from(keyId, 'utf8'))
}

/** Node's GCM open of one wrapped key: the reference the batched opener (wrapped-key-opener.ts, A36) is
 *  tested against. The services open keys through MasterKeyRing. */
export function unwrapDataKey(masterKey: Buffer, keyId: string, wrapped: Buffer): Buffer {
  return open(masterKey, wrapped, Buffer.from(keyId, 'utf8'))
}
