// The projector's side of an erasure (A12): it follows the erasures topic into the ErasureSet that
// the consume loop (and a replay) filter records with, and for each new request it closes the
// account's live streams, waits until every row fetched before the request is written, purges the
// person's rows from every table and writes the receipt (projections_purged_at) back on the topic.
// Requests are handled one at a time; a request whose step failed (ClickHouse or Kafka unreachable, a
// purge that gave up) is tried again after `retryMs` while it is still the person's latest request, and
// a request whose receipt is missing when the projector starts (it stopped in between) is handled then. Several projector instances each purge (it is idempotent)
// and each write a receipt; the last one written stays.
//
// With a keys topic (A15, A17) two steps follow: every data key of the person is tombstoned (acks=all:
// history_unreadable_at), and a periodic look at the keys topic writes disk_gone_at once no record of
// those keys is left for a reader and the broker has deleted the replaced segment files. A request
// written with sealing on names the person by pseudonym and holds the user id sealed (A22): it is opened
// for the purge only, and its key is among the person's keys the second step tombstones.
import type { ClickHouseClient } from '@clickhouse/client'
import type { Kafka, Producer } from '../../../shared/src/kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { ErasureRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import type { Readiness } from '../../../shared/src/wait-for.js'
import type { AccountsFollower } from '../../../shared/src/accounts/accounts-log.js'
import { ErasureSet } from '../../../shared/src/privacy/erasure-set.js'
import { ErasureWriter, followErasures } from '../../../shared/src/privacy/erasures-log.js'
import type { Pseudonyms } from '../../../shared/src/privacy/erasure-identity.js'
import { purgePeople, type PurgeOptions } from './purge.js'
import { KeysEraser, type KeysEraserOptions } from './keys-eraser.js'

/** An erasure's receipt steps, as the receipt names them (schemas/avro/erasure.avsc, docs/privacy.md). */
export type ErasureStep = 'projections_purged' | 'history_unreadable' | 'disk_gone'
export const ERASURE_STEPS: readonly ErasureStep[] = ['projections_purged', 'history_unreadable', 'disk_gone']

/** What an operator graphs of erasures (consume/metrics.ts): each step's time from its request, against
 *  A12's 60 s bound for the first and A17's deadline for the others, and the attempts that failed. */
export interface ErasureMetrics {
  stepDone(step: ErasureStep, secondsSinceRequest: number): void
  attemptFailed(): void
}

/** Requests (each person's latest) whose step is not done yet; the Kafka steps only with a keys topic. */
export function pendingSteps(erasures: readonly ErasureRecord[], withKeys: boolean): Record<ErasureStep, number> {
  const pending = { projections_purged: 0, history_unreadable: 0, disk_gone: 0 }
  for (const e of erasures) {
    if (e.projections_purged_at === null) pending.projections_purged++
    if (!withKeys) continue
    if (e.history_unreadable_at === null) pending.history_unreadable++
    else if (e.disk_gone_at === null) pending.disk_gone++
  }
  return pending
}

export interface ErasureWorkerDeps {
  kafka: Kafka
  codec: Codec
  producer: Producer
  ch: ClickHouseClient
  database: string
  topic: string
  /** Resolves once every row fetched so far is written (the consume loop's batcher). */
  settled(): Promise<void>
  /** Ends the account's live streams: what they hold unsent may include the person's items. */
  closeLiveStreams(accountId: string): void
  log: Logger
  purge?: PurgeOptions
  /** The keys topic of crypto-shredding (A15); without it only the projections are purged. */
  keys?: KeysEraserOptions
  /** A22: the master key's pseudonyms, by which erasures are matched whatever their format. */
  pseudonyms?: Pseudonyms
  /** A22: the user id of a pseudonymous erasure, opened with its own key (read from the keys topic). */
  userIdOf?(e: ErasureRecord): Promise<string | undefined>
  /** ms before a request whose step failed is tried again (ERASURE_RETRY_MS). */
  retryMs: number
  metrics?: ErasureMetrics
}

/** A31: the most requests purged and tombstoned together: a statement a table lists their user ids. */
export const MAX_BATCH = 200

export class ErasureWorker {
  readonly set: ErasureSet
  private follower?: AccountsFollower
  private readonly writer: ErasureWriter
  private chain: Promise<void> = Promise.resolve()
  private following = false
  private stopped = false
  private readonly keys?: KeysEraser
  private timer?: NodeJS.Timeout
  private readonly retries = new Set<NodeJS.Timeout>()
  /** Requests waiting for the drain (A31), by id. */
  private readonly queue = new Map<string, ErasureRecord>()
  private draining = false
  /** The receipts this worker wrote, by request: its steps done, whether or not read back yet. */
  private readonly written = new Map<string, ErasureRecord>()
  /** Aborted by stop(): a purge waiting for ClickHouse's mutations gives up then, so stop() returns. */
  private readonly stopping = new AbortController()

  constructor(private readonly d: ErasureWorkerDeps) {
    this.set = new ErasureSet(d.pseudonyms)
    this.writer = new ErasureWriter(d.producer, d.codec, d.topic)
    if (d.keys) this.keys = new KeysEraser(d.kafka, d.producer, d.keys)
  }

  /** Follows the topic until caught up (the consume loop must not start before: it would project
   * erased people), then handles the requests that have no receipt yet. */
  async start(opts: { readiness?: Readiness; signal?: AbortSignal } = {}): Promise<void> {
    this.follower = await followErasures(this.d.kafka, this.d.codec, this.d.topic, (e) => this.apply(e), this.d.log, {
      groupPrefix: 'projector-erasures',
      ...opts,
    })
    await this.follower.ready
    this.following = true
    for (const e of this.set.list()) if (this.unfinished(e)) this.enqueue(e)
    if (this.keys) {
      this.timer = setInterval(() => this.enqueueDiskCheck(), this.keys.checkMs)
      this.timer.unref()
    }
  }

  /** A step this worker takes is not done yet (the disk check is the timer's). */
  private unfinished(e: ErasureRecord): boolean {
    return e.projections_purged_at === null || (this.keys !== undefined && e.history_unreadable_at === null)
  }

  /** The requests whose steps are not done yet, by step (projector_erasures_pending). */
  pending(): Record<ErasureStep, number> {
    return pendingSteps(this.set.list(), this.keys !== undefined)
  }

  /** Resolves when the requests seen so far are handled. */
  idle(): Promise<void> {
    return this.chain
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.stopping.abort()
    clearInterval(this.timer)
    for (const r of this.retries) clearTimeout(r)
    await this.follower?.stop()
    await this.chain
  }

  /** The follower's callback. After a group rejoin the follower reads the topic from its start again,
   *  so a request is read again, and is handled as its latest state then says (handle). */
  apply(e: ErasureRecord) {
    this.set.apply(e)
    if (this.following && e.projections_purged_at === null) this.enqueue(e)
  }

  /** A31: a request joins the queue; one drain at a time takes the queue in batches, so requests that come
   *  together are purged and tombstoned together instead of each waiting for all before it. */
  private enqueue(e: ErasureRecord) {
    this.queue.set(e.erasure_id, e)
    if (this.draining) return
    this.draining = true
    this.chain = this.chain.then(() => this.drain())
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.size > 0 && !this.stopped) {
        const batch = [...this.queue.values()].slice(0, MAX_BATCH)
        for (const e of batch) this.queue.delete(e.erasure_id)
        await this.handle(batch).catch((err) => this.failed(batch, err))
      }
    } finally {
      this.draining = false
    }
  }

  private failed(batch: readonly ErasureRecord[], err: unknown) {
    // Ended by stop(): not a failure; the requests stay without a receipt and are handled at the next start.
    if (this.stopped) return
    this.d.metrics?.attemptFailed()
    this.d.log.error('erasure not completed; it is tried again', {
      erasure_ids: batch.map((e) => e.erasure_id),
      retry_ms: this.d.retryMs,
      err,
    })
    for (const e of batch) this.retryLater(e)
  }

  /** A12's 60 s bound holds through a short outage only if a failed step is tried again while running. */
  private retryLater(e: ErasureRecord) {
    if (this.stopped) return
    const r = setTimeout(() => {
      this.retries.delete(r)
      // The latest record of the request: a step done since (its receipt read back) is not redone.
      const latest = this.set.forRecord(e)
      if (latest?.erasure_id === e.erasure_id && this.unfinished(latest)) this.enqueue(latest)
    }, this.d.retryMs)
    r.unref()
    this.retries.add(r)
  }

  /** One look at the keys topic for the erasures whose keys are tombstoned and not yet gone from disk. */
  private enqueueDiskCheck() {
    this.chain = this.chain
      .then(async () => {
        if (this.stopped) return
        for (const done of await this.keys!.diskCheck(this.set.list())) {
          await this.writer.write(done)
          this.stepDone('disk_gone', done, done.disk_gone_at!)
        }
      })
      .catch((err) => {
        this.d.metrics?.attemptFailed()
        this.d.log.warn('erasure: keys topic not checked; tried again', { err })
      })
  }

  /** The batch's requests as they stand now (a newer request of the same person replaces a queued one). The
   *  latest state, not the record queued: a request read again (apply) was purged already, and purging it
   *  again would write a later receipt, so the receipt's time would move with every rejoin. */
  private current(batch: readonly ErasureRecord[]): ErasureRecord[] {
    return batch.flatMap((queued) => {
      const latest = this.set.forRecord(queued)
      if (this.stopped || latest?.erasure_id !== queued.erasure_id) return []
      return [furthest(latest, this.written.get(queued.erasure_id))]
    })
  }

  private async handle(batch: readonly ErasureRecord[]): Promise<void> {
    let es = this.current(batch)
    const toPurge = es.filter((e) => e.projections_purged_at === null)
    if (toPurge.length > 0) {
      const purged = new Map((await this.purge(toPurge)).map((e) => [e.erasure_id, e]))
      // A request whose purge did not happen (its user id cannot be opened) is retried alone.
      es = es.filter((e) => e.projections_purged_at !== null || purged.has(e.erasure_id))
      es = es.map((e) => purged.get(e.erasure_id) ?? e)
    }
    const toTombstone = this.keys ? es.filter((e) => e.history_unreadable_at === null) : []
    if (toTombstone.length === 0) return
    const tombstoned = await this.keys!.tombstone(toTombstone)
    for (const { record, keys } of tombstoned) {
      await this.writer.write(record)
      this.written.set(record.erasure_id, record)
      this.stepDone('history_unreadable', record, record.history_unreadable_at!)
      this.d.log.info('erasure: data keys tombstoned', { erasure_id: record.erasure_id, keys })
    }
  }

  /** Purges the requests' people in one purge (A31) and writes each one's receipt; returns those purged. */
  private async purge(es: readonly ErasureRecord[]): Promise<ErasureRecord[]> {
    const started = Date.now()
    // A22: the clear id is only for ClickHouse's delete; the receipt written back names no one in clear.
    const people: Array<{ e: ErasureRecord; account_id: string; user_id: string }> = []
    for (const e of es) {
      try {
        people.push({ e, account_id: e.account_id, user_id: await this.userId(e) })
      } catch (err) {
        this.failed([e], err)
      }
    }
    if (people.length === 0) return []
    for (const account of new Set(people.map((p) => p.account_id))) this.d.closeLiveStreams(account)
    await this.d.settled()
    const purged = await purgePeople(this.d.ch, this.d.database, people, {
      ...this.d.purge,
      signal: this.stopping.signal,
    })
    const now = Date.now()
    const done = people.map(({ e }) => ({
      ...e,
      projections_purged_at: now,
      updated_at: Math.max(now, e.updated_at + 1),
    }))
    for (const d of done) {
      await this.writer.write(d)
      this.written.set(d.erasure_id, d)
      this.stepDone('projections_purged', d, now)
    }
    this.d.log.info('erasure: projections purged', {
      erasure_ids: done.map((d) => d.erasure_id),
      tables: purged.tables,
      rows: purged.found,
      rounds: purged.rounds,
      ms: now - started,
    })
    return done
  }

  /** A step's receipt is written: its time from the request. */
  private stepDone(step: ErasureStep, e: ErasureRecord, at: number) {
    this.d.metrics?.stepDone(step, Math.max(0, at - e.requested_at) / 1000)
  }

  private async userId(e: ErasureRecord): Promise<string> {
    if (e.user_id !== '') return e.user_id
    const id = await this.d.userIdOf?.(e)
    if (id === undefined)
      throw new Error(`erasure ${e.erasure_id}: its user id cannot be opened (no key on the keys topic)`)
    return id
  }
}

/** Of two states of one request, the one with more of its steps done (the first on a tie). */
function furthest(a: ErasureRecord, b: ErasureRecord | undefined): ErasureRecord {
  const done = (e: ErasureRecord) => Number(e.projections_purged_at !== null) + Number(e.history_unreadable_at !== null)
  return b !== undefined && done(b) > done(a) ? b : a
}
