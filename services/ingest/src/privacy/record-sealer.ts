// A15: where ingest seals a record's personal fields (A13's encryptPersonalFields) and replaces the
// user id in its Kafka key with the pseudonym. A person-month's data key is minted on first sight by
// this instance, wrapped by the master key and written to the keys topic (acks=all) before any record
// sealed with it is appended: a key on its way is shared by the requests that need it, and each waits
// for its write. Keys are random and stored, never derived, so a tombstone erases them; a key evicted
// from the LRU (or held by another instance) is never looked up: a new one is minted, with a new key id
// (the generation suffix), and the person has one more key on the topic. Erasure finds them all by prefix.
import { randomBytes } from 'node:crypto'
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import {
  accountSecretOf,
  dataKeyId,
  encryptPersonalFields,
  KeyStream,
  keyMonth,
  newDataKey,
  STREAM_GENERATION_MARK,
  pseudonymOf,
  pseudonymousRecordKey,
  wrapDataKey,
  type RecordKind,
} from '../../../shared/src/privacy/crypto/index.js'
import { Lru } from './lru.js'

export interface WrappedKey {
  /** The keys topic's record key: `account NUL pseudonym NUL YYYY-MM NUL generation`. */
  id: string
  wrapped: Buffer
}

/** Appends keys to the keys topic; resolves once every copy the topic asks for has them (acks=all). */
export type KeysWrite = (keys: WrappedKey[]) => Promise<void>

interface HeldKey {
  id: string
  bytes: Buffer
  /** A18: every record of this key continues one AES-256-CTR stream (this instance is its only writer). */
  stream: KeyStream
  /** The received month (YYYY-MM) the key covers. */
  month: string
  /** Resolves when the key is on the keys topic; a record sealed with it may be appended only then. */
  written: Promise<void>
}

export type SealInput = { kind: 'event'; record: EventRecord } | { kind: 'identify'; record: IdentifyRecord }

export interface SealedRecord<R> {
  /** The record's Kafka key: account NUL pseudonym. */
  key: string
  record: R
}

/** Bytes of randomness that tell two keys of one person-month apart (minted by two instances, or twice). */
const GENERATION_BYTES = 4

export class RecordSealer {
  private readonly pseudonyms: Lru<string, string>
  private readonly keys: Lru<string, HeldKey>
  private readonly secrets = new Map<string, Buffer>()

  constructor(
    private readonly masterKey: Buffer,
    private readonly write: KeysWrite,
    entries: number,
  ) {
    this.pseudonyms = new Lru(entries)
    this.keys = new Lru(entries)
  }

  /**
   * The records sealed, in order, with their pseudonymous Kafka keys. Resolves once every data key they
   * need is on the keys topic; rejects (nothing may be appended) when a key could not be written.
   */
  async seal<R extends EventRecord | IdentifyRecord>(items: ReadonlyArray<SealInput>): Promise<SealedRecord<R>[]> {
    const minted: WrappedKey[] = []
    const held: HeldKey[] = []
    const pseudonyms: string[] = []
    for (let i = 0; i < items.length; i++) {
      const { record } = items[i]!
      const month = keyMonth(record.received_at)
      const prev = items[i - 1]?.record
      // A batch is mostly one person: the previous item's pseudonym and key, without the LRUs' work (A18).
      if (prev?.user_id === record.user_id && prev.account_id === record.account_id && held[i - 1]!.month === month) {
        pseudonyms.push(pseudonyms[i - 1]!)
        held.push(held[i - 1]!)
        continue
      }
      const pseudonym = this.pseudonymOf(record.account_id, record.user_id)
      pseudonyms.push(pseudonym)
      held.push(this.keyFor(record.account_id, pseudonym, month, minted))
    }
    if (minted.length > 0) this.flush(minted, held)
    await Promise.all(new Set(held.map((k) => k.written)))
    return items.map(({ kind, record }, i) => ({
      key: pseudonymousRecordKey(record.account_id, pseudonyms[i]!),
      record: encryptPersonalFields(
        kind as RecordKind,
        record as unknown as Record<string, unknown>,
        held[i]!,
        pseudonyms[i]!,
      ) as unknown as R,
    }))
  }

  private pseudonymOf(accountId: string, userId: string): string {
    const k = `${accountId}\u0000${userId}`
    let p = this.pseudonyms.get(k)
    if (p === undefined) {
      let secret = this.secrets.get(accountId)
      if (secret === undefined) this.secrets.set(accountId, (secret = accountSecretOf(this.masterKey, accountId)))
      p = pseudonymOf(secret, userId)
      this.pseudonyms.set(k, p)
    }
    return p
  }

  private keyFor(accountId: string, pseudonym: string, month: string, minted: WrappedKey[]): HeldKey {
    const slot = dataKeyId(accountId, pseudonym, month)
    const cached = this.keys.get(slot)
    if (cached !== undefined) return cached
    const id = `${slot}\u0000${STREAM_GENERATION_MARK}${randomBytes(GENERATION_BYTES).toString('hex')}`
    const bytes = newDataKey()
    minted.push({ id, wrapped: wrapDataKey(this.masterKey, id, bytes) })
    // Settled by flush(), which this request calls before it waits.
    const k: HeldKey = { id, bytes, stream: new KeyStream(bytes), month, written: Promise.resolve() }
    this.keys.set(slot, k)
    return k
  }

  /** Writes this request's new keys; each new key's `written` is that write, and a failed write forgets
   *  the keys (the next request mints new ones) so no record is ever sealed with an unwritten key. */
  private flush(minted: WrappedKey[], held: HeldKey[]): void {
    const written = this.write(minted)
    const ids = new Set(minted.map((m) => m.id))
    for (const k of held) if (ids.has(k.id)) k.written = written
    written.catch(() => {
      for (const k of held) if (ids.has(k.id)) this.keys.deleteIf(k.id.slice(0, k.id.lastIndexOf('\u0000')), k)
    })
  }
}
