// A16: the projector's and the replay's holder of the data keys (A15: minted by ingest, written acks=all
// to the compacted keys topic before any record sealed with them). It reads the keys topic from its start
// with a consumer of its own (nothing committed: each start reads it all again), unwraps each key with
// the master key and packs it (key-table.ts); a tombstone removes it. A record names its key; a key the
// holder has not read yet was written before the record, so on a miss the holder reads on to the keys
// topic's end as of now, and only then may the key be called gone (erased, or its month expired).
import { randomUUID } from 'node:crypto'
import type { Admin, Consumer, Kafka } from '../../../shared/src/kafka/client.js'
import { forgetStream, unwrapDataKey } from '../../../shared/src/privacy/crypto/index.js'
import { CodedError } from '../../../shared/src/errors.js'
import type { Logger } from '../../../shared/src/log.js'
import { KeyTable, type KeyTableImage } from './key-table.js'
import { RecentKeys } from './recent-keys.js'

/** A key on the keys topic that the master key does not open: a wrong PRIVACY_MASTER_KEY. Nothing may
 * be projected as if its key were gone (that would drop rows for good), so the holder stops here. */
export class KeyUnwrapError extends CodedError {
  constructor(cause: unknown) {
    super('KEY_UNWRAP_FAILED', 'a data key on the keys topic does not open with PRIVACY_MASTER_KEY', {
      retriable: false,
      cause,
    })
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
  private waiters: Array<{ end: bigint; resolve: () => void; reject: (e: Error) => void }> = []

  constructor(
    private readonly masterKey: Buffer,
    /** The keys topic's end offset now (its one partition's high watermark). */
    private readonly endOffset: () => Promise<bigint>,
    /** PRIVACY_OPEN_CACHE_ENTRIES (A21). */
    openCacheEntries: number,
    /** A33: `shared`, to hand its keys to other threads (snapshot()); `base`, to start from such a snapshot. */
    from: { shared?: boolean; base?: KeysSnapshot } = {},
  ) {
    this.recent = new RecentKeys(openCacheEntries)
    this.table = new KeyTable(from.shared ?? false)
    this.base = from.base === undefined ? undefined : KeyTable.over(from.base.image)
    this.position = from.base?.position ?? 0n
  }

  get size(): number {
    return (this.base?.size ?? 0) - this.hidden.size + this.table.size
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
    const key = this.table.get(id) ?? (this.base === undefined || this.hidden.has(id) ? undefined : this.base.get(id))
    if (key !== undefined) this.recent.add(id, key)
    return key
  }

  apply(entries: readonly KeyEntry[], next: bigint): void {
    for (const e of entries) {
      if (this.failure) break
      // Read already (a base's, A33, or a batch fetched again): applying it again could bring back a
      // value its id has since replaced.
      if (e.offset < this.position) continue
      // A27: the held key's continued decipher opens its next records: dropped, and the key zeroed.
      const held = this.recent.delete(e.id)
      if (held !== undefined) forgetStream(held)
      // A33: the base's copy is hidden, not zeroed: other threads read the same bytes.
      if (this.base?.has(e.id)) this.hidden.add(e.id)
      if (e.wrapped === null) this.table.delete(e.id)
      else this.store(e.id, e.wrapped)
    }
    if (next > this.position) this.position = next
    this.settle()
  }

  async caughtUp(): Promise<void> {
    const end = await this.endOffset()
    if (this.failure) throw this.failure
    if (this.position >= end) return
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ end, resolve, reject })
    })
  }

  private store(id: string, wrapped: Buffer): void {
    try {
      this.table.set(id, unwrapDataKey(this.masterKey, id, wrapped))
    } catch (err) {
      this.failure = new KeyUnwrapError(err)
    }
  }

  private settle(): void {
    const waiting = this.waiters
    this.waiters = []
    for (const w of waiting) {
      if (this.failure) w.reject(this.failure)
      else if (this.position >= w.end) w.resolve()
      else this.waiters.push(w)
    }
  }
}

/** Follows the keys topic (one partition, A15) from its start into `holder`; created at the edge (main.ts,
 * the replay), started before the records are read. */
export class KeysFollower {
  readonly holder: KeysHolder
  private readonly admin: Admin
  private consumer: Consumer | undefined

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    masterKey: Buffer,
    private readonly log: Logger,
    openCacheEntries: number,
    /** A33: see KeysHolder; with a base, the topic is read from the base's position on. */
    private readonly from: { shared?: boolean; base?: KeysSnapshot } = {},
  ) {
    this.admin = kafka.admin()
    this.holder = new KeysHolder(
      masterKey,
      async () => {
        const offsets = await this.admin.fetchTopicOffsets(this.topic)
        return offsets.reduce((n, p) => n + BigInt(p.high), 0n)
      },
      openCacheEntries,
      from,
    )
  }

  /** Resolves once everything on the keys topic as of now is held. */
  async start(): Promise<void> {
    await this.admin.connect()
    const consumer = this.kafka.consumer({ groupId: `keys-holder-${randomUUID()}`, maxWaitTimeInMs: 100 })
    this.consumer = consumer
    await consumer.connect()
    await consumer.subscribe({ topic: this.topic, fromBeginning: true })
    const base = this.from.base
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const entries = batch.messages.map((m) => ({
          id: m.key?.toString('utf8') ?? '',
          wrapped: m.value ?? null,
          offset: BigInt(m.offset),
        }))
        this.holder.apply(entries, BigInt(batch.lastOffset()) + 1n)
      },
    })
    // A33: what the base holds is not read again (the holder skips it if a fetch came before the seek).
    if (base !== undefined) consumer.seek({ topic: this.topic, partition: 0, offset: String(base.position) })
    await this.holder.caughtUp()
    this.log.info('keys topic read to its end', { topic: this.topic, keys: this.holder.size })
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => undefined)
    await this.admin.disconnect().catch(() => undefined)
  }
}
