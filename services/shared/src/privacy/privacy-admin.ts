// Erasure requests and their receipts (A12), for the privacy CLI and the dashboard: a request is a
// record on the erasures topic, and the projector writes the same record again as each step ends.
// Keeps a snapshot of the topic (followed from the start) to list receipts and to read its own writes.
import { randomUUID } from 'node:crypto'
import type { Kafka, Producer } from '../kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { ErasureRecord } from '../../../../schemas/records.js'
import type { Logger } from '../log.js'
import type { Readiness } from '../wait-for.js'
import { AdminError } from '../accounts/accounts-admin.js'
import type { AccountsFollower } from '../accounts/accounts-log.js'
import { ErasureSet } from './erasure-set.js'
import { ErasureWriter, followErasures } from './erasures-log.js'
import { SeenWaiters } from '../seen-waiters.js'

/** User ids are at most 255 characters (H9); an erasure names one exactly as it was sent. */
export const MAX_USER_ID_LENGTH = 255

export interface ErasureRequest {
  accountId: string
  userId: string
  /** Who asked: `dashboard:<owner email>` or `cli:<os user>`. */
  requestedBy: string
  suppress: boolean
}

export class PrivacyAdmin {
  readonly erasures = new ErasureSet()
  private follower?: AccountsFollower
  private readonly writer: ErasureWriter
  private readonly waiters = new SeenWaiters()

  constructor(
    private readonly kafka: Kafka,
    producer: Producer,
    private readonly codec: Codec,
    private readonly topic: string,
    private readonly log: Logger,
  ) {
    this.writer = new ErasureWriter(producer, codec, topic)
  }

  async start(opts: { readiness?: Readiness; signal?: AbortSignal } = {}): Promise<void> {
    this.follower = await followErasures(this.kafka, this.codec, this.topic, (e) => this.apply(e), this.log, {
      groupPrefix: 'privacy-admin',
      ...opts,
    })
    await this.follower.ready
  }

  async stop(): Promise<void> {
    await this.follower?.stop()
  }

  private apply(e: ErasureRecord) {
    this.erasures.apply(e)
    this.waiters.notify()
  }

  /** Appends a new erasure request; a repeated request for the same person starts over (all steps again). */
  async requestErasure(r: ErasureRequest): Promise<ErasureRecord> {
    if (r.userId === '' || r.userId.length > MAX_USER_ID_LENGTH)
      throw new AdminError('INVALID', `a user id is 1 to ${MAX_USER_ID_LENGTH} characters`)
    const now = Date.now()
    const rec: ErasureRecord = {
      erasure_id: randomUUID(),
      account_id: r.accountId,
      user_id: r.userId,
      requested_by: r.requestedBy,
      requested_at: now,
      suppress: r.suppress,
      projections_purged_at: null,
      history_unreadable_at: null,
      disk_gone_at: null,
      updated_at: now,
    }
    await this.writer.write(rec)
    await this.waiters.seen(() => this.erasures.get(r.accountId, r.userId)?.erasure_id === rec.erasure_id)
    return rec
  }

  /** The account's erasure requests, newest first. */
  list(accountId: string): ErasureRecord[] {
    return this.erasures.list(accountId)
  }

  /** Resolves once the request is purged from the projections (its receipt says so), or after `timeoutMs`. */
  async purged(
    accountId: string,
    userId: string,
    erasureId: string,
    timeoutMs: number,
  ): Promise<ErasureRecord | undefined> {
    const done = () => {
      const e = this.erasures.get(accountId, userId)
      return e?.erasure_id === erasureId && e.projections_purged_at !== null
    }
    await this.waiters.seen(done, timeoutMs)
    return this.erasures.get(accountId, userId)
  }
}
