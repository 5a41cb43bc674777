// Erasure requests and their receipts (A12), for the privacy CLI and the dashboard: a request is a
// record on the erasures topic, and the projector writes the same record again as each step ends.
// Keeps a snapshot of the topic (followed from the start) to list receipts and to read its own writes.
// With sealing on a request names no one in clear (A22, erasure-identity.ts).
import { randomUUID } from 'node:crypto'
import type { Kafka, Producer } from '../kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { ErasureRecord } from '../../../../schemas/records.js'
import type { Logger } from '../log.js'
import type { Readiness } from '../wait-for.js'
import { AdminError } from '../accounts/accounts-admin.js'
import type { AccountsFollower } from '../accounts/accounts-log.js'
import { ErasureSet } from './erasure-set.js'
import { erasureIdKeyId, Pseudonyms, sealUserId } from './erasure-identity.js'
import { newDataKey, wrapDataKey } from './crypto/index.js'
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

/** A22: how requests name the person: with `encrypt` (PRIVACY_ENCRYPT) by pseudonym, the user id sealed. */
export interface ErasureSealing {
  masterKey: Buffer
  /** A35: the key pseudonyms are derived from. */
  pseudonymKey: Buffer
  encrypt: boolean
  /** The keys topic, where each request's own key is written before the request. */
  keysTopic: string
}

/** The sealing of a service's or tool's configuration (every one reads PRIVACY_* the same way). */
export function erasureSealing(cfg: {
  privacy: { masterKey: Buffer; pseudonymKey: Buffer; encrypt: boolean }
  topics: { keys?: string }
}): ErasureSealing {
  const { masterKey, pseudonymKey, encrypt } = cfg.privacy
  return { masterKey, pseudonymKey, encrypt, keysTopic: cfg.topics.keys! }
}

export class PrivacyAdmin {
  readonly erasures: ErasureSet
  private follower?: AccountsFollower
  private readonly writer: ErasureWriter
  private readonly waiters = new SeenWaiters()
  /** A22: the user ids of the pseudonymous requests this process made, shown in its receipts while it runs. */
  private readonly known = new Map<string, string>()

  constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly codec: Codec,
    private readonly topic: string,
    private readonly log: Logger,
    private readonly sealing?: ErasureSealing,
  ) {
    this.writer = new ErasureWriter(producer, codec, topic)
    this.erasures = new ErasureSet(sealing && new Pseudonyms(sealing.pseudonymKey))
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
    await this.writer.write(this.sealing?.encrypt ? await this.sealed(rec) : rec)
    await this.waiters.seen(() => this.erasures.get(r.accountId, r.userId)?.erasure_id === rec.erasure_id)
    return rec
  }

  /** The account's erasure requests, newest first; a pseudonymous one with its user id when this process
   *  made it (otherwise its user id is empty, its pseudonym names the person). */
  list(accountId: string): ErasureRecord[] {
    return this.erasures.list(accountId).map((e) => this.shown(e))
  }

  /** A receipt as shown: the user id when known here, the sealed one left out (it opens for no reader). */
  private shown(e: ErasureRecord): ErasureRecord {
    return { ...e, user_id: e.user_id || (this.known.get(e.erasure_id) ?? ''), sealed_user_id: undefined }
  }

  /**
   * A22: the request as written with sealing on: the person's pseudonym, and the user id sealed under a
   * key of its own, stored on the keys topic (acks=all) under the person's key prefix before the request.
   */
  private async sealed(rec: ErasureRecord): Promise<ErasureRecord> {
    const { masterKey, keysTopic } = this.sealing!
    const pseudonym = this.erasures.pseudonymOf(rec.account_id, rec.user_id)
    const id = erasureIdKeyId(rec.account_id, pseudonym, rec.erasure_id)
    const key = newDataKey()
    await this.producer.send({
      topic: keysTopic,
      acks: -1,
      messages: [{ key: id, value: wrapDataKey(masterKey, id, key) }],
    })
    this.known.set(rec.erasure_id, rec.user_id)
    return { ...rec, user_id: '', pseudonym, sealed_user_id: sealUserId(key, rec.user_id, rec.erasure_id) }
  }

  /** With sealing on (PRIVACY_ENCRYPT: requests sealed, A22; the erasure's keys steps run, A17), the keys
   *  topic; undefined with it off. */
  get keysTopic(): string | undefined {
    return this.sealing?.encrypt === true ? this.sealing.keysTopic : undefined
  }

  /** Resolves once the request is purged from the projections (its receipt says so), or after `timeoutMs`. */
  purged(accountId: string, userId: string, erasureId: string, timeoutMs: number): Promise<ErasureRecord | undefined> {
    return this.reached('projections_purged_at', accountId, userId, erasureId, timeoutMs)
  }

  /** Resolves once the request's receipt has `step` done, or after `timeoutMs`; the receipt as it is then. */
  async reached(
    step: 'projections_purged_at' | 'history_unreadable_at',
    accountId: string,
    userId: string,
    erasureId: string,
    timeoutMs: number,
  ): Promise<ErasureRecord | undefined> {
    const done = () => {
      const e = this.erasures.get(accountId, userId)
      return e?.erasure_id === erasureId && e[step] !== null
    }
    await this.waiters.seen(done, timeoutMs)
    const e = this.erasures.get(accountId, userId)
    return e && this.shown(e)
  }
}
