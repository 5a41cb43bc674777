// A15: where ingest seals a record's personal fields (A13's encryptPersonalFields) and replaces the
// user id in its Kafka key with the pseudonym. A person-month's data key is minted on first sight by
// this instance, wrapped by the master key and written to the keys topic (acks=all) before any record
// sealed with it is appended: a key on its way is shared by the requests that need it, and each waits
// for its write. Keys are random and stored, never derived, so a tombstone erases them; a key evicted
// from the cache (or held by another instance) is never looked up: a new one is minted, with a new key id
// (the generation suffix), and the person has one more key on the topic. Erasure finds them all by prefix.
// A20: one cache entry a person holds the pseudonym, the record key and the month's key; a request whose
// keys are all stored is sealed synchronously (`sealNow`), without a promise.
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import {
  accountSecretOf,
  KeyStream,
  keyMonth,
  mintDataKey,
  pseudonymOf,
  pseudonymousRecordKey,
  sealPersonalFields,
  sealPersonalFieldsRun,
  type StreamKey,
} from '../../../shared/src/privacy/crypto/index.js'
import { PersonCache } from './person-cache.js'

export interface WrappedKey {
  /** The keys topic's record key: `account NUL pseudonym NUL YYYY-MM NUL generation`. */
  id: string
  wrapped: Buffer
}

/** Appends keys to the keys topic; resolves once every copy the topic asks for has them (acks=all). */
export type KeysWrite = (keys: WrappedKey[]) => Promise<void>

/** A18: every record of this key continues one AES-256-CTR stream (this instance is its only writer). */
interface HeldKey extends StreamKey {
  /** The received month (YYYY-MM) the key covers. */
  month: string
  /** Whether the key is on the keys topic: only then may a record sealed with it be appended. */
  stored: boolean
  /** Resolves when the key is on the keys topic (`stored`); rejects when its write failed. */
  written: Promise<void>
}

interface Person {
  pseudonym: string
  /** The records' Kafka key, `account NUL pseudonym`, built once. */
  recordKey: string
  /** The data key of the latest month this instance sealed for the person. */
  key: HeldKey | undefined
}

interface Minted {
  person: Person
  key: HeldKey
  wrapped: Buffer
}

export type SealInput = { kind: 'event'; record: EventRecord } | { kind: 'identify'; record: IdentifyRecord }

export interface SealedRecord<R> {
  /** The record's Kafka key: account NUL pseudonym. */
  key: string
  record: R
}

/** Whether `key` may seal a record of `month` now: held for that month, and stored (A15: key before record). */
function sealable(key: HeldKey | undefined, month: string): key is HeldKey {
  return key !== undefined && key.month === month && key.stored
}

/** Until flush() gives a minted key its write, in the same synchronous step; and once the key is stored,
 *  so a held key keeps no promise of its own. */
const SETTLED = Promise.resolve()

export class RecordSealer {
  private readonly people: PersonCache<Person>
  private readonly secrets = new Map<string, Buffer>()

  constructor(
    private readonly masterKey: Buffer,
    private readonly write: KeysWrite,
    entries: number,
    /** A35: the key pseudonyms are derived from; the master key unless it was rotated. */
    private readonly pseudonymKey = masterKey,
  ) {
    this.people = new PersonCache(entries)
  }

  /**
   * The records sealed, in order, with their pseudonymous Kafka keys, when every key they need is stored
   * already (the steady state); otherwise `undefined`, nothing sealed, and the caller takes `seal`.
   */
  sealNow<R extends EventRecord | IdentifyRecord>(items: ReadonlyArray<SealInput>): SealedRecord<R>[] | undefined {
    if (items.length === 1) return this.sealOneNow(items[0]!)
    const people: Person[] = []
    const keys: HeldKey[] = []
    return this.keysOf(items, people, keys, undefined) ? this.sealWith(items, people, keys) : undefined
  }

  /** A25: `sealNow` of one record (/v1/event), without the arrays a run needs. */
  private sealOneNow<R>({ kind, record }: SealInput): SealedRecord<R>[] | undefined {
    const p = this.personOf(record.account_id, record.user_id)
    const key = p.key
    if (!sealable(key, keyMonth(record.received_at))) return undefined
    return [{ key: p.recordKey, record: sealPersonalFields(kind, record as never, key, p.pseudonym) as R }]
  }

  /**
   * The records sealed, in order, with their pseudonymous Kafka keys. Resolves once every data key they
   * need is on the keys topic; rejects (nothing may be appended) when a key could not be written.
   */
  async seal<R extends EventRecord | IdentifyRecord>(items: ReadonlyArray<SealInput>): Promise<SealedRecord<R>[]> {
    const people: Person[] = []
    const keys: HeldKey[] = []
    const minted: Minted[] = []
    this.keysOf(items, people, keys, minted)
    if (minted.length > 0) this.flush(minted)
    await Promise.all(new Set(keys.map((k) => k.written)))
    return this.sealWith(items, people, keys)
  }

  /**
   * Fills each item's person and key. Without `minted` it stops at the first key not held or not stored
   * yet (false); with it, a missing key is minted into `minted`.
   */
  private keysOf(items: ReadonlyArray<SealInput>, people: Person[], keys: HeldKey[], minted?: Minted[]): boolean {
    for (let i = 0; i < items.length; i++) {
      const { record } = items[i]!
      const prev = i > 0 ? items[i - 1]!.record : undefined
      // A batch is mostly one person: the previous item's entry, without the cache's work (A18).
      const person =
        prev !== undefined && prev.user_id === record.user_id && prev.account_id === record.account_id
          ? people[i - 1]!
          : this.personOf(record.account_id, record.user_id)
      const month = keyMonth(record.received_at)
      let key = person.key
      if (key === undefined || key.month !== month || (minted === undefined && !key.stored)) {
        if (minted === undefined) return false
        key = this.mint(person, record.account_id, month, minted)
      }
      people.push(person)
      keys.push(key)
    }
    return true
  }

  /** Seals each run of consecutive records of one key with one `update` of its stream (A20). */
  private sealWith<R>(items: ReadonlyArray<SealInput>, people: Person[], keys: HeldKey[]): SealedRecord<R>[] {
    const out: SealedRecord<R>[] = new Array(items.length)
    for (let i = 0, end = 0; i < items.length; i = end) {
      const p = people[i]!
      const key = keys[i]!
      for (end = i + 1; end < items.length && keys[end] === key; ) end++
      if (end === i + 1) {
        const { kind, record } = items[i]!
        out[i] = { key: p.recordKey, record: sealPersonalFields(kind, record as never, key, p.pseudonym) as R }
        continue
      }
      const sealed = sealPersonalFieldsRun(items.slice(i, end) as never[], key, p.pseudonym)
      for (let j = i; j < end; j++) out[j] = { key: p.recordKey, record: sealed[j - i] as R }
    }
    return out
  }

  private personOf(accountId: string, userId: string): Person {
    let p = this.people.get(accountId, userId)
    if (p === undefined) {
      let secret = this.secrets.get(accountId)
      if (secret === undefined) this.secrets.set(accountId, (secret = accountSecretOf(this.pseudonymKey, accountId)))
      const pseudonym = pseudonymOf(secret, userId)
      p = { pseudonym, recordKey: pseudonymousRecordKey(accountId, pseudonym), key: undefined }
      this.people.add(accountId, userId, p)
    }
    return p
  }

  /** A new key of the person-month (its bytes live on only in its stream). A record of an earlier month than
   *  the person's held key (a request received just before a month's end, sealed after) keeps the later one held. */
  private mint(person: Person, accountId: string, month: string, minted: Minted[]): HeldKey {
    const { id, bytes, wrapped } = mintDataKey(this.masterKey, accountId, person.pseudonym, month)
    const key: HeldKey = { id, stream: new KeyStream(bytes), month, stored: false, written: SETTLED }
    minted.push({ person, key, wrapped })
    if (person.key === undefined || person.key.month < month) person.key = key
    return key
  }

  /** Writes this request's new keys; each new key's `written` is that write, and a failed write forgets
   *  the keys (the next request mints new ones) so no record is ever sealed with an unwritten key. */
  private flush(minted: Minted[]): void {
    let written: Promise<void>
    try {
      written = this.write(minted.map((m) => ({ id: m.key.id, wrapped: m.wrapped })))
    } catch (err) {
      written = Promise.reject(err)
    }
    for (const m of minted) m.key.written = written
    written.then(
      () => {
        for (const m of minted) {
          m.key.stored = true
          m.key.written = SETTLED
        }
      },
      () => {
        for (const m of minted) if (m.person.key === m.key) m.person.key = undefined
      },
    )
  }
}
