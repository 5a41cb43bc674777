// A16: the projector's and the replay's holder of the data keys (A15: minted by ingest, written acks=all
// to the compacted keys topic before any record sealed with them). It reads the keys topic from its start
// with a consumer of its own (nothing committed: each start reads it all again), unwraps each key with
// the master key and packs it (key-table.ts); a tombstone removes it. A record names its key; a key the
// holder has not read yet was written before the record, so on a miss the holder reads on to the keys
// topic's end as of now, and only then may the key be called gone (erased, or its month expired).
import { randomUUID } from 'node:crypto'
import type { Admin, Consumer, EachBatchPayload, Kafka } from '../../../shared/src/kafka/client.js'
import {
  forgetStream,
  type MasterKeyRing,
  NoMasterOpensError,
  type OpenedKeys,
} from '../../../shared/src/privacy/crypto/index.js'
import { CodedError } from '../../../shared/src/errors.js'
import type { Logger } from '../../../shared/src/log.js'
import { idHash, KeyTable, type KeyTableImage } from './key-table.js'
import { RecentKeys } from './recent-keys.js'

/** A key on the keys topic that no master key given opens: a wrong PRIVACY_MASTER_KEY, or a rotated-out one
 * missing from PRIVACY_OLD_MASTER_KEY (A35). Nothing may be projected as if its key were gone (that would drop
 * rows for good), so the holder stops here. */
export class KeyUnwrapError extends CodedError {
  constructor(cause: unknown) {
    super(
      'KEY_UNWRAP_FAILED',
      'a data key on the keys topic opens with neither PRIVACY_MASTER_KEY nor PRIVACY_OLD_MASTER_KEY',
      {
        retriable: false,
        cause,
      },
    )
  }
}

/** One record of the keys topic: its key id, its wrapped key or null (a tombstone), its offset. */
export interface KeyEntry {
  id: string
  wrapped: Buffer | null
  offset: bigint
}

/** The keys as the decode step asks for them (projection.ts). */
export interface KeySource {
  /** The data key of `id`, if the holder has read it. */
  keyFor(id: string): Buffer | undefined
  /** Resolves once every key on the topic now has been read: a key still missing then is gone. */
  caughtUp(): Promise<void>
}

/** A33: the keys topic read once, to `position`, into shared memory: what each replay thread starts from. */
export interface KeysSnapshot {
  image: KeyTableImage
  position: bigint
}

export class KeysHolder implements KeySource {
  /** The keys read by this holder (after `base`'s, when it has one). */
  private readonly table: KeyTable
  /** A33: keys another thread read up to its position, shared read-only; `hidden` are those of its ids
   *  this holder has since seen tombstoned or given a new value (which `table` then holds). */
  private readonly base: KeyTable | undefined
  private readonly hidden = new Set<string>()
  /** A21: the keys asked for lately, each one Buffer while held (the stream reader's continuation). */
  private recent: RecentKeys
  /** The next offset to read: every record before it has been applied. */
  private position = 0n
  private failure: KeyUnwrapError | undefined
  /** A35: ids whose latest value read so far opens with no master given, each with whether it is of the
   *  older part of the topic (A34), and the last such failure. After a rotation the old master's copy of a
   *  re-wrapped key stays on the topic until the cleaner drops it, and the copy after it opens: so such a
   *  value stops the holder only if it is still its id's latest once the holder has read to the end. One
   *  error is kept, not one an id: a topic re-wrapped whole is read old copies first. */
  private readonly unopened = new Map<string, boolean>()
  private unopenedCause: unknown
  private readonly maxUnopened: number
  /** A35: keys opened with a master of PRIVACY_OLD_MASTER_KEY, for projector_data_keys_old_master. */
  private openedByOld = 0
  /** A34: when the topic is read from a recent offset first: the keys of the entries below `before`
   *  (applyOlder(), a table of their own, so an id's older entries are applied in order while one with an
   *  entry from `before` on is never touched), the ids tombstoned from `before` on (whose older keys are
   *  never served), and whether every older entry has been applied. */
  private older: { before: bigint; table: KeyTable; tombstoned: Set<string>; read: boolean } | undefined
  private waiters: Array<{ end: bigint; all: boolean; resolve: () => void; reject: (e: Error) => void }> = []

  constructor(
    /** A35: the current master key and any being rotated out. */
    private readonly masters: MasterKeyRing,
    /** The keys topic's end offset now (its one partition's high watermark). */
    private readonly endOffset: () => Promise<bigint>,
    /** PRIVACY_OPEN_CACHE_ENTRIES (A21). */
    openCacheEntries: number,
    /** A33: `shared`, to hand its keys to other threads (snapshot()); `base`, to start from such a snapshot.
     *  A35: `maxUnopened`, the copies no master opens kept waiting for a later copy (MAX_UNOPENED). */
    from: { shared?: boolean; base?: KeysSnapshot; maxUnopened?: number } = {},
  ) {
    this.maxUnopened = from.maxUnopened ?? MAX_UNOPENED
    this.recent = new RecentKeys(openCacheEntries)
    this.table = new KeyTable(from.shared ?? false)
    this.base = from.base === undefined ? undefined : KeyTable.over(from.base.image)
    this.position = from.base?.position ?? 0n
  }

  /** A35: keys this holder opened with an old master since it started. */
  get keysOpenedByOldMaster(): number {
    return this.openedByOld
  }

  get size(): number {
    return (this.base?.size ?? 0) - this.hidden.size + this.table.size + (this.older?.table.size ?? 0)
  }

  /** A33: the keys read so far, in shared memory, and where the reading stopped; this holder must not
   *  apply anything after (its follower is stopped first). */
  snapshot(): KeysSnapshot {
    return { image: this.table.image(), position: this.position }
  }

  /** A24: holds up to `entries` opened keys from now on (the replay's size, once it knows the keys). The keys
   *  held so far are dropped: each is read from the table again when asked for. */
  holdOpened(entries: number): void {
    this.recent = new RecentKeys(entries)
  }

  /** The same Buffer for an id while the recent keys hold it, so its stream continues (A21). */
  keyFor(id: string): Buffer | undefined {
    const held = this.recent.get(id)
    if (held !== undefined) return held
    const key =
      this.table.get(id) ??
      this.olderKey(id) ??
      (this.base === undefined || this.hidden.has(id) ? undefined : this.base.get(id))
    if (key !== undefined) this.recent.add(id, key)
    return key
  }

  apply(entries: readonly KeyEntry[], next: bigint): void {
    const opened = this.openEntries(entries, (e) => e.offset >= this.position)
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!
      if (this.failure) break
      // Read already (a base's, A33, or a batch fetched again): applying it again could bring back a
      // value its id has since replaced.
      if (e.offset < this.position) continue
      // A27: the held key's continued decipher opens its next records: dropped, and the key zeroed.
      const held = this.recent.delete(e.id)
      if (held !== undefined) forgetStream(held)
      // A33: the base's copy is hidden, not zeroed: other threads read the same bytes.
      if (this.base?.has(e.id)) this.hidden.add(e.id)
      // A34: an older key of the id goes, whether this is a tombstone or a new value (the id hashed once
      // for both tables).
      const hash = this.older === undefined ? undefined : idHash(e.id)
      this.older?.table.delete(e.id, hash)
      this.unopened.delete(e.id)
      if (e.wrapped === null) {
        this.table.delete(e.id, hash)
        if (this.older?.read === false) this.older.tombstoned.add(e.id)
      } else this.store(this.table, e.id, opened, i, hash)
    }
    if (next > this.position) this.position = next
    this.settle()
  }

  /** A34: the topic is read from `offset` on first (apply()); the entries before it come later, through
   *  applyOlder(), and caughtUp() waits for them too. */
  startAt(offset: bigint): void {
    this.position = offset
    this.older = { before: offset, table: new KeyTable(), tombstoned: new Set(), read: false }
  }

  /** A34: entries from below the offset startAt() began at, in the topic's order. An id that has a value
   *  or a tombstone from that offset on is left as it is: an older entry never shadows a newer one. */
  applyOlder(entries: readonly KeyEntry[]): void {
    const older = this.older
    if (older === undefined) return
    const skipped = (e: KeyEntry) => older.read || e.offset >= older.before || older.tombstoned.has(e.id)
    const opened = this.openEntries(entries, (e) => !skipped(e))
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!
      if (this.failure) break
      if (skipped(e)) continue
      if (this.unopened.get(e.id) === false) continue
      // One SHA-256 of the id for both tables.
      const hash = idHash(e.id)
      if (this.table.has(e.id, hash)) continue
      // An earlier older entry of this id may have been opened since (A27, as in apply()).
      const held = this.recent.delete(e.id)
      if (held !== undefined) forgetStream(held)
      this.unopened.delete(e.id)
      if (e.wrapped === null) older.table.delete(e.id, hash)
      else this.store(older.table, e.id, opened, i, hash)
    }
  }

  /** A34: whether entries below startAt()'s offset are still to come. */
  get readingOlder(): boolean {
    return this.older !== undefined && !this.older.read
  }

  /** A34: every entry below startAt()'s offset has been applied. */
  olderRead(): void {
    if (this.older !== undefined) {
      this.older.read = true
      // Every id it names was kept out of the older table, and later ones delete from it (apply()).
      this.older.tombstoned.clear()
    }
    this.settle()
  }

  private olderKey(id: string): Buffer | undefined {
    const older = this.older
    return older === undefined || older.tombstoned.has(id) ? undefined : older.table.get(id)
  }

  async caughtUp(): Promise<void> {
    await this.readTo(true)
  }

  /** A34: caughtUp() for the part read first (from startAt()'s offset), older entries still to come. */
  async recentCaughtUp(): Promise<void> {
    await this.readTo(false)
  }

  private async readTo(all: boolean): Promise<void> {
    const end = await this.endOffset()
    if (this.failure) throw this.failure
    if (this.reached(end, all)) {
      this.failOnUnopened(all)
      if (this.failure) throw this.failure
      return
    }
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ end, all, resolve, reject })
    })
  }

  private reached(end: bigint, all: boolean): boolean {
    return this.position >= end && (!all || this.older === undefined || this.older.read)
  }

  /** A36: the keys of the entries `wanted` picks, by the entry's index, opened together before the entries
   *  are applied one by one (what opening them one by one cost was mostly each open's set-up). */
  private openEntries(entries: readonly KeyEntry[], wanted: (e: KeyEntry) => boolean): OpenedKeys {
    return this.masters.openAll(
      entries.map((e) => e.id),
      entries.map((e) => (wanted(e) ? e.wrapped : null)),
    )
  }

  private store(table: KeyTable, id: string, opened: OpenedKeys, i: number, hash?: Buffer): void {
    const key = opened.keys[i]
    let cause: unknown
    if (key !== undefined)
      try {
        table.set(id, key, hash)
        if (opened.openers[i] !== 0) this.openedByOld++
        return
      } catch (err) {
        // A value that opens to a key of another size (ingest never writes one).
        cause = err
      } finally {
        key.fill(0)
      }
    cause ??= new NoMasterOpensError()
    // An earlier value of the id is not served in its place.
    table.delete(id, hash)
    // Past the bound the holder stops at once, as before A35: the memory a wrong master key costs stays
    // bounded, and a topic re-wrapped but not yet cleaned is read with the old master still given.
    if (this.unopened.size >= this.maxUnopened) this.failure = new KeyUnwrapError(cause)
    this.unopened.set(id, table !== this.table)
    this.unopenedCause = cause
  }

  /** A35: read to an end, a value no master opens that is still its id's latest stops the holder; one of the
   *  older part (A34) only once that part is read too (a later older entry may replace it). */
  private failOnUnopened(all: boolean): void {
    for (const older of this.unopened.values())
      if (!older || all || this.older?.read) {
        this.failure ??= new KeyUnwrapError(this.unopenedCause)
        return
      }
  }

  private settle(): void {
    const waiting = this.waiters
    this.waiters = []
    for (const w of waiting) {
      if (!this.failure && this.reached(w.end, w.all)) this.failOnUnopened(w.all)
      if (this.failure) w.reject(this.failure)
      else if (this.reached(w.end, w.all)) w.resolve()
      else this.waiters.push(w)
    }
  }
}

/** A35: copies no master opens that a holder keeps waiting for a later copy of their id: about 30 MB of ids.
 *  A rotation's old copies are as many as its keys until the cleaner drops them (docs/privacy.md: keep
 *  PRIVACY_OLD_MASTER_KEY until `rewrap --check` counts none); a stray few are not a reason to stop. */
export const MAX_UNOPENED = 100_000

/** A34: where the live projector starts reading the keys topic: keys written since the start of the
 *  previous UTC month, less a day for clocks (a record's key is minted when ingest first seals a record of
 *  that person and received month, so the records of this month and the last are sealed with such keys). */
export function recentKeysSince(nowMs: number): number {
  const now = new Date(nowMs)
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1) - 24 * 3600_000
}

/** A34: a wait between attempts of the older part's read when Kafka fails it. */
const OLDER_RETRY_MS = 1000

/** Follows the keys topic (one partition, A15) from its start into `holder`; created at the edge (main.ts,
 * the replay), started before the records are read. */
export class KeysFollower {
  readonly holder: KeysHolder
  private readonly admin: Admin
  private consumer: Consumer | undefined
  /** A34: the older part's reader while it runs, and what ends its wait when the follower stops. */
  private olderConsumer: Consumer | undefined
  private endOlderWait: (() => void) | undefined
  private stopped = false

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    masters: MasterKeyRing,
    private readonly log: Logger,
    openCacheEntries: number,
    /** A33: see KeysHolder; with a base, the topic is read from the base's position on. A34: with
     *  `recentSince` (ms), start() reads the keys written since then first and resolves; the older ones
     *  follow in the background. */
    private readonly from: { shared?: boolean; base?: KeysSnapshot; recentSince?: number } = {},
  ) {
    this.admin = kafka.admin()
    this.holder = new KeysHolder(
      masters,
      async () => {
        const offsets = await this.admin.fetchTopicOffsets(this.topic)
        return offsets.reduce((n, p) => n + BigInt(p.high), 0n)
      },
      openCacheEntries,
      from,
    )
  }

  /** Resolves once everything on the keys topic as of now is held; A34: with `recentSince`, once what was
   *  written since then is (caughtUp() waits for the rest). */
  async start(): Promise<void> {
    await this.admin.connect()
    const base = this.from.base
    const split = base === undefined && this.from.recentSince !== undefined ? await this.splitAt() : 0n
    if (split > 0n) this.holder.startAt(split)
    const consumer = this.newConsumer()
    this.consumer = consumer
    await this.readFromStart(consumer, (batch) =>
      this.holder.apply(entriesOf(batch.messages), BigInt(batch.lastOffset()) + 1n),
    )
    // A33: what the base holds is not read again (the holder skips it if a fetch came before the seek).
    // A34: nor, for now, what lies before the split.
    const from = base?.position ?? split
    if (from > 0n) consumer.seek({ topic: this.topic, partition: 0, offset: String(from) })
    if (split === 0n) {
      await this.holder.caughtUp()
      this.log.info('keys topic read to its end', { topic: this.topic, keys: this.holder.size })
      return
    }
    await this.holder.recentCaughtUp()
    this.log.info('recent keys read; older keys follow', {
      topic: this.topic,
      keys: this.holder.size,
      since: new Date(this.from.recentSince!).toISOString(),
      offset: String(split),
    })
    void this.readOlder(split)
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.endOlderWait?.()
    await this.olderConsumer?.disconnect().catch(() => undefined)
    await this.consumer?.disconnect().catch(() => undefined)
    await this.admin.disconnect().catch(() => undefined)
  }

  /** A consumer of the keys topic of its own: nothing is committed, each start reads again. */
  private newConsumer(): Consumer {
    return this.kafka.consumer({ groupId: `keys-holder-${randomUUID()}`, maxWaitTimeInMs: 100 })
  }

  /** Connects `consumer` and hands it every batch of the keys topic from its start on. */
  private async readFromStart(consumer: Consumer, onBatch: (batch: EachBatchPayload['batch']) => void): Promise<void> {
    await consumer.connect()
    await consumer.subscribe({ topic: this.topic, fromBeginning: true })
    await consumer.run({ autoCommit: false, eachBatch: async ({ batch }) => onBatch(batch) })
  }

  /** The first offset written at or after `recentSince`; 0 (read it all in order) when that is the start. */
  private async splitAt(): Promise<bigint> {
    const [p] = await this.admin.fetchTopicOffsetsByTimestamp(this.topic, this.from.recentSince)
    return p === undefined ? 0n : BigInt(p.offset)
  }

  /** A34: the entries below `split`, from the topic's start, into the holder; retried until read or stopped. */
  private async readOlder(split: bigint): Promise<void> {
    while (!this.stopped) {
      const consumer = this.newConsumer()
      this.olderConsumer = consumer
      try {
        const read = new Promise<void>((resolve) => {
          this.endOlderWait = resolve
        })
        await this.readFromStart(consumer, (batch) => {
          this.holder.applyOlder(entriesOf(batch.messages))
          if (BigInt(batch.lastOffset()) + 1n >= split) this.endOlderWait?.()
        })
        await read
        if (this.stopped) return
        this.holder.olderRead()
        this.log.info('keys topic read to its end', { topic: this.topic, keys: this.holder.size })
        return
      } catch (err) {
        if (this.stopped) return
        this.log.warn('reading the older keys failed; retrying', { topic: this.topic, error: String(err) })
        await new Promise((r) => setTimeout(r, OLDER_RETRY_MS))
      } finally {
        await consumer.disconnect().catch(() => undefined)
        this.olderConsumer = undefined
      }
    }
  }
}

function entriesOf(messages: ReadonlyArray<{ key: Buffer | null; value: Buffer | null; offset: string }>): KeyEntry[] {
  return messages.map((m) => ({
    id: m.key?.toString('utf8') ?? '',
    wrapped: m.value ?? null,
    offset: BigInt(m.offset),
  }))
}
