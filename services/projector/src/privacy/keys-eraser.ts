// The erasure's steps on the keys topic (A17): tombstone every data key of the person, then watch the
// topic until the cleaner has removed them from the disks. Both times are observed, not computed.
import { ConfigResourceTypes, type Kafka, type Producer } from '../../../shared/src/kafka/client.js'
import type { ErasureRecord } from '../../../../schemas/records.js'
import {
  keyMatcher,
  leftBefore,
  liveKeyIds,
  ROLL_KEY_ID,
  scanKeys,
  type KeyEntry,
  type KeyMatch,
} from '../../../shared/src/privacy/keys-scan.js'
import { erasurePrefix, personPartOf } from './person-keys.js'

export interface KeysEraserOptions {
  topic: string
  /** A35: the key pseudonyms are derived from (an erasure's person prefix). */
  pseudonymKey: Buffer
  /** How often the keys topic is read for erasures not yet gone from disk (ERASURE_DISK_CHECK_MS). */
  checkMs: number
}

/** Keys that go together: one person's (an erasure) or one account's expired months (a retention). */
export interface KeySet {
  /** Names the set across looks (an erasure id, or a retention's account). */
  id: string
  match: KeyMatch
  /** Only records written up to this time count (an erasure's history_unreadable_at); all without it. */
  until?: number
}

export interface KeySetLook {
  /** Keys this look tombstoned. */
  tombstoned: number
  /** Records of the set (keys or tombstones) a reader still gets. */
  left: number
  /** When the last copy left the disks, once observed (file.delete.delay.ms after none was left). */
  goneAt?: number
}

/** Tombstones in one send: key ids are about 100 bytes, so a send stays near 100 kB. */
const TOMBSTONES_A_SEND = 1_000

export class KeysEraser {
  readonly checkMs: number
  /** Key set id -> when a look first found none of its keys left. */
  private readonly goneSeen = new Map<string, number>()

  constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly o: KeysEraserOptions,
  ) {
    this.checkMs = o.checkMs
  }

  /**
   * Tombstones every key of each erasure's person, all in one read of the keys topic (A31); each receipt's
   * history_unreadable_at is when the broker acked them.
   */
  async tombstone(es: readonly ErasureRecord[]): Promise<Array<{ record: ErasureRecord; keys: number }>> {
    const prefixes = es.map((e) => erasurePrefix(this.o.pseudonymKey, e))
    const wanted = new Set(prefixes)
    const byPerson = new Map<string, KeyEntry[]>()
    for (const entry of await scanKeys(this.kafka, this.o.topic, (id) => wanted.has(personPartOf(id)))) {
      const person = personPartOf(entry.id)
      const entries = byPerson.get(person)
      if (entries === undefined) byPerson.set(person, [entry])
      else entries.push(entry)
    }
    const ids = prefixes.map((prefix) => liveKeyIds(byPerson.get(prefix) ?? [], prefix))
    await this.write([...new Set(ids.flat())])
    const now = Date.now()
    return es.map((e, i) => ({
      record: { ...e, history_unreadable_at: now, updated_at: Math.max(now, e.updated_at + 1) },
      keys: ids[i]!.length,
    }))
  }

  /**
   * The receipts that can now say disk_gone_at. A key written before history_unreadable_at and not
   * tombstoned (minted while the first step read the topic) is tombstoned now.
   */
  async diskCheck(erasures: readonly ErasureRecord[]): Promise<ErasureRecord[]> {
    const pending = erasures.filter((e) => e.history_unreadable_at !== null && e.disk_gone_at === null)
    if (pending.length === 0) return []
    const looks = await this.look(
      pending.map((e) => ({
        id: e.erasure_id,
        match: erasurePrefix(this.o.pseudonymKey, e),
        until: e.history_unreadable_at!,
      })),
    )
    const now = Date.now()
    return pending.flatMap((e, i) => {
      const gone = looks[i]!.goneAt
      return gone === undefined ? [] : [{ ...e, disk_gone_at: gone, updated_at: Math.max(now, e.updated_at + 1) }]
    })
  }

  /**
   * One read of the keys topic for several sets of keys (an erasure's person, A17; a retention's expired
   * months, A23): each set's live keys are tombstoned, and a set with no record left (key or tombstone)
   * is gone from disk `file.delete.delay.ms` after a look first found it so. While any record is left,
   * one tombstone of a key no one has is appended: the broker rolls (and so may clean) the active segment
   * only on an append, and a quiet keys topic would keep the tombstones' segment for ever.
   */
  async look(sets: readonly KeySet[]): Promise<KeySetLook[]> {
    // Only the records some set matches are kept from the read (keys-scan.ts). A31: a person's set (an
    // erasure) is found by the key id's person part in one lookup, however many erasures wait for their
    // disk check; only the other sets (a retention's months) are tried one by one.
    const people = new Set(
      sets.map((set) => set.match).filter((m): m is string => typeof m === 'string' && personPartOf(m) === m),
    )
    const others = sets.filter((set) => !people.has(set.match as string)).map((set) => keyMatcher(set.match))
    const entries = await scanKeys(
      this.kafka,
      this.o.topic,
      (id) => people.has(personPartOf(id)) || others.some((m) => m(id)),
    )
    const delay = await this.fileDeleteDelayMs()
    const now = Date.now()
    let left = false
    const out: KeySetLook[] = []
    for (const set of sets) {
      const mine = set.until === undefined ? entries : ofIdsBefore(entries, set.until)
      const records = leftBefore(mine, set.match, Number.POSITIVE_INFINITY)
      if (records > 0) {
        left = true
        this.goneSeen.delete(set.id)
        const live = liveKeyIds(mine, set.match)
        await this.write(live)
        out.push({ tombstoned: live.length, left: records })
        continue
      }
      const seen = this.goneSeen.get(set.id) ?? now
      this.goneSeen.set(set.id, seen)
      const gone = seen + delay
      if (now >= gone) this.goneSeen.delete(set.id)
      out.push({ tombstoned: 0, left: 0, goneAt: now >= gone ? gone : undefined })
    }
    if (left) await this.write([ROLL_KEY_ID])
    return out
  }

  /** The topic's file.delete.delay.ms, as the broker applies it: how long after the cleaner swapped a
   *  segment its old file stays on disk. Read each time: an operator may change it. */
  private async fileDeleteDelayMs(): Promise<number> {
    const admin = this.kafka.admin()
    await admin.connect()
    try {
      const { resources } = await admin.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: this.o.topic, configNames: ['file.delete.delay.ms'] }],
        includeSynonyms: false,
      })
      const value = Number(resources[0]?.configEntries[0]?.configValue)
      if (!Number.isFinite(value)) throw new Error(`no file.delete.delay.ms for ${this.o.topic}`)
      return value
    } finally {
      await admin.disconnect()
    }
  }

  /** A31: a batch's tombstones go in sends of TOMBSTONES_A_SEND, each well under the broker's message.max.bytes
   *  (1 MiB by default) whatever the batch holds: 200 people of 25 months each are 5,000 key ids. */
  private async write(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += TOMBSTONES_A_SEND) {
      const messages = ids.slice(i, i + TOMBSTONES_A_SEND).map((key) => ({ key, value: null }))
      await this.producer.send({ topic: this.o.topic, acks: -1, messages })
    }
  }
}

/** The records of every id with a record written at or before `until`: a key minted after an erasure has an
 *  id of its own (A20) and is not the erasure's, but a key of the person re-wrapped after it (A35) keeps its
 *  id, and its new copy is one more the cleaner must remove before the receipt may say disk_gone_at. */
export function ofIdsBefore(entries: readonly KeyEntry[], until: number): KeyEntry[] {
  const ids = new Set(entries.filter((e) => e.at <= until).map((e) => e.id))
  return entries.filter((e) => ids.has(e.id))
}
