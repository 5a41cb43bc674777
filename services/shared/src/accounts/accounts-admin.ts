// Account, plan and key changes as records on the accounts topic (A1). Used by the keys CLI and
// the dashboard: it keeps a snapshot of the topic (followed from the start) to validate changes,
// and every change is a new record; nothing lives only in this process.
import { randomUUID } from 'node:crypto'
import type { Kafka, Producer } from '../kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import {
  undoesRevocation,
  type AccountRecord,
  type IpHandling,
  type ApiKeyRecord,
  type KeyStatus,
  type KeyType,
  type PlanRecord,
} from '../../../../schemas/records.js'
import { generateKey } from './key-hash.js'
import { AccountsWriter, followAccounts, type AccountsFollower, type AccountsEntry } from './accounts-log.js'
import type { Logger } from '../log.js'
import type { Readiness } from '../wait-for.js'
import { AppError } from '../errors.js'
import { SeenWaiters } from '../seen-waiters.js'
import { retentionProblem } from '../privacy/retention.js'

export class AdminError extends AppError {
  constructor(
    readonly code: 'NOT_FOUND' | 'CONFLICT' | 'INVALID',
    message: string,
  ) {
    super(message, { status: code === 'NOT_FOUND' ? 404 : code === 'CONFLICT' ? 409 : 400, retriable: false })
  }
}

export const ACCOUNT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

export class AccountsAdmin {
  readonly accounts = new Map<string, AccountRecord>()
  readonly keys = new Map<string, ApiKeyRecord>()
  readonly plans = new Map<string, PlanRecord>()
  private follower?: AccountsFollower
  private readonly writer: AccountsWriter
  private readonly waiters = new SeenWaiters()
  // Account changes read the snapshot and write a whole record: one at a time in this process, so
  // two concurrent changes (a sign-out and a plan change) cannot drop each other.
  private accountChain: Promise<unknown> = Promise.resolve()
  // The last record on the topic per key, before the revocation rule: where it is not the revoked
  // record, compaction would keep it and forget the revocation, so the revocation is written again.
  private readonly lastKeyRecord = new Map<string, ApiKeyRecord>()

  constructor(
    private readonly kafka: Kafka,
    producer: Producer,
    private readonly codec: Codec,
    private readonly topic: string,
    private readonly log: Logger,
  ) {
    this.writer = new AccountsWriter(producer, codec, topic)
  }

  /** Follows the topic until caught up; Kafka and the registry are waited for (readiness, signal: see followAccounts). */
  async start(opts: { readiness?: Readiness; signal?: AbortSignal } = {}): Promise<void> {
    this.follower = await followAccounts(this.kafka, this.codec, this.topic, (e) => this.apply(e), this.log, {
      groupPrefix: 'accounts-admin',
      ...opts,
    })
    await this.follower.ready
    await this.reassertRevocations()
  }

  /** Appends the revoked record again for every key whose last record on the topic is not it
   * (a reactivate that lost a race with a revoke, perhaps written by another process), so that log
   * compaction, which keeps only a key's last record, cannot bring the key back. */
  async reassertRevocations(): Promise<number> {
    const stale = [...this.keys.values()].filter(
      (k) => k.status === 'revoked' && this.lastKeyRecord.get(k.key_id)?.status !== 'revoked',
    )
    if (stale.length === 0) return 0
    const now = Date.now()
    const again = stale.map((k) => ({
      ...k,
      updated_at: Math.max(now, (this.lastKeyRecord.get(k.key_id)?.updated_at ?? 0) + 1),
    }))
    await this.writer.write(again.map((value) => ({ kind: 'ApiKey' as const, value })))
    await this.seen(() => again.every((k) => this.lastKeyRecord.get(k.key_id)?.updated_at === k.updated_at))
    this.log.warn('revocations written again after a later record for the same key', {
      keys: again.map((k) => k.key_id),
    })
    return again.length
  }

  async stop(): Promise<void> {
    await this.follower?.stop()
  }

  private apply(e: AccountsEntry) {
    if (e.kind === 'Account') this.accounts.set(e.value.account_id, e.value)
    else if (e.kind === 'Plan') this.plans.set(e.value.name, e.value)
    else {
      this.lastKeyRecord.set(e.value.key_id, e.value)
      if (!undoesRevocation(this.keys.get(e.value.key_id), e.value)) this.keys.set(e.value.key_id, e.value)
    }
    this.waiters.notify()
  }

  /** Resolves once our own follower has seen a change (read-your-writes for the dashboard). */
  private seen(check: () => boolean): Promise<void> {
    return this.waiters.seen(check)
  }

  findAccountByEmail(email: string): AccountRecord | undefined {
    const e = email.trim().toLowerCase()
    for (const a of this.accounts.values()) if (a.owner_email?.toLowerCase() === e) return a
    return undefined
  }

  async createAccount(input: {
    accountId: string
    name?: string
    plan?: string
    ownerEmail?: string
    passwordHash?: string
  }): Promise<AccountRecord> {
    if (!ACCOUNT_ID_PATTERN.test(input.accountId))
      throw new AdminError('INVALID', `account id must match ${ACCOUNT_ID_PATTERN}`)
    if (this.accounts.has(input.accountId)) throw new AdminError('CONFLICT', `account ${input.accountId} exists`)
    const now = Date.now()
    const rec: AccountRecord = {
      account_id: input.accountId,
      name: input.name ?? input.accountId,
      plan: input.plan ?? 'hobby',
      status: 'active',
      owner_email: input.ownerEmail ?? null,
      password_hash: input.passwordHash ?? null,
      created_at: now,
      updated_at: now,
      session_version: 0,
      revoked_sessions: [],
    }
    await this.writer.write([{ kind: 'Account', value: rec }])
    await this.seen(() => this.accounts.get(rec.account_id)?.updated_at === rec.updated_at)
    return rec
  }

  /** Writes `change(current)` over the account, serialized with the other account changes. */
  private updateAccount(
    accountId: string,
    change: (a: AccountRecord) => Partial<AccountRecord>,
  ): Promise<AccountRecord> {
    const run = this.accountChain.then(async () => {
      const a = this.accounts.get(accountId)
      if (!a) throw new AdminError('NOT_FOUND', `no account ${accountId}`)
      const rec: AccountRecord = {
        session_version: 0,
        revoked_sessions: [],
        ...a,
        ...change(a),
        updated_at: Math.max(Date.now(), a.updated_at + 1),
      }
      await this.writer.write([{ kind: 'Account', value: rec }])
      await this.seen(() => this.accounts.get(accountId)?.updated_at === rec.updated_at)
      return rec
    })
    this.accountChain = run.catch(() => undefined)
    return run
  }

  setPlan(accountId: string, plan: string): Promise<AccountRecord> {
    return this.updateAccount(accountId, () => ({ plan }))
  }

  /** What ingest keeps of the client IP on the account's records (H56). */
  setIpHandling(accountId: string, ipHandling: IpHandling): Promise<AccountRecord> {
    return this.updateAccount(accountId, () => ({ ip_handling: ipHandling }))
  }

  /** How many months of the account's events are kept (H60); 0 keeps them for ever. */
  setRetention(accountId: string, months: number): Promise<AccountRecord> {
    const problem = retentionProblem(months)
    if (problem !== undefined) return Promise.reject(new AdminError('INVALID', problem))
    return this.updateAccount(accountId, () => ({ retention_months: months }))
  }

  /** Ends one dashboard session before it expires (sign-out). Past `maxRevoked` live entries, every
   * session of the account ends instead, which keeps the record small and errs on the safe side. */
  revokeSession(accountId: string, sid: string, expiresAt: number, maxRevoked = 100): Promise<AccountRecord> {
    return this.updateAccount(accountId, (a) => {
      const now = Date.now()
      const revoked = [
        ...(a.revoked_sessions ?? []).filter((r) => r.expires_at > now && r.sid !== sid),
        { sid, expires_at: expiresAt },
      ]
      if (revoked.length > maxRevoked) return { session_version: (a.session_version ?? 0) + 1, revoked_sessions: [] }
      return { revoked_sessions: revoked }
    })
  }

  /** Ends every dashboard session of the account (sign out everywhere). */
  endAllSessions(accountId: string): Promise<AccountRecord> {
    return this.updateAccount(accountId, (a) => ({
      session_version: (a.session_version ?? 0) + 1,
      revoked_sessions: [],
    }))
  }

  /** A new password hash; every existing session ends. */
  setPassword(accountId: string, passwordHash: string): Promise<AccountRecord> {
    return this.updateAccount(accountId, (a) => ({
      password_hash: passwordHash,
      session_version: (a.session_version ?? 0) + 1,
      revoked_sessions: [],
    }))
  }

  async putPlan(plan: PlanRecord): Promise<void> {
    await this.writer.write([{ kind: 'Plan', value: plan }])
    await this.seen(() => this.plans.get(plan.name)?.updated_at === plan.updated_at)
  }

  /** Creates a key; the secret is returned once and never stored (H1). */
  async createKey(input: {
    accountId: string
    name: string
    type: KeyType
  }): Promise<{ secret: string; record: ApiKeyRecord }> {
    if (!this.accounts.has(input.accountId)) throw new AdminError('NOT_FOUND', `no account ${input.accountId}`)
    if (!input.name.trim()) throw new AdminError('INVALID', 'a key needs a name')
    const g = generateKey(input.type)
    const now = Date.now()
    const record: ApiKeyRecord = {
      key_id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      account_id: input.accountId,
      key_hash: g.hash,
      masked: g.masked,
      name: input.name.trim(),
      type: input.type,
      status: 'active',
      created_at: now,
      updated_at: now,
    }
    await this.writer.write([{ kind: 'ApiKey', value: record }])
    await this.seen(() => this.keys.has(record.key_id))
    return { secret: g.key, record }
  }

  async setKeyStatus(keyId: string, status: KeyStatus, accountId?: string): Promise<ApiKeyRecord> {
    const k = this.keys.get(keyId)
    if (!k || (accountId && k.account_id !== accountId)) throw new AdminError('NOT_FOUND', `no key ${keyId}`)
    if (k.status === 'revoked' && status !== 'revoked')
      throw new AdminError('CONFLICT', 'a revoked key cannot come back; create a new one')
    const rec = { ...k, status, updated_at: Math.max(Date.now(), k.updated_at + 1) }
    await this.writer.write([{ kind: 'ApiKey', value: rec }])
    await this.seen(() => this.lastKeyRecord.get(keyId)?.updated_at === rec.updated_at)
    // A revoke from elsewhere landed before this record: every reader keeps the key revoked, and
    // the revocation is written again so that it stays the key's last record.
    if (this.keys.get(keyId)?.status === 'revoked' && status !== 'revoked') {
      await this.reassertRevocations()
      throw new AdminError('CONFLICT', 'the key was revoked meanwhile; a revoked key cannot come back')
    }
    return rec
  }

  keysOf(accountId: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => k.account_id === accountId).sort((a, b) => a.created_at - b.created_at)
  }
}
