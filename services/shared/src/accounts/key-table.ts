// In-memory projection of the accounts topic (A1, A3: accounts, plans and keys on one
// log-compacted topic). Built by replaying the topic and kept current by consuming it; the
// follower (accounts-log.ts) calls apply* for every record and the request path calls lookup().
// Nothing writes tombstones today (a deleted key is a record with status revoked) and the follower
// skips records without a value; remove* are what a tombstone would call if one were written.
//
// Keys are indexed by hash (the request path) and by key_id (updates: a key record's status
// may change, its hash never does). Inactive/revoked keys stay in the table so reactivation
// is one record; lookup() refuses them. Records hold only hashes (H1); never log a key.

import { timingSafeEqual } from 'node:crypto'
import {
  undoesRevocation,
  type AccountRecord,
  type ApiKeyRecord,
  type PlanRecord,
} from '../../../../schemas/records.js'
import { DEFAULT_PLANS, FALLBACK_PLAN_NAME, normalizePlanName, planFromRecord, type Plan } from './plans.js'

export interface KeyLookup {
  key: ApiKeyRecord
  account: AccountRecord
  plan: Plan
}

export interface KeyTableOptions {
  /** Configured plans (DEFAULT_PLANS or parsePlans()); Plan records override them. */
  plans?: Readonly<Record<string, Plan>>
  /** Plan for accounts naming an unknown plan. Default 'hobby', the most restrictive. */
  fallbackPlan?: string
}

interface KeyEntry {
  record: ApiKeyRecord
  /** The 32 hash bytes, for the constant-time final comparison. */
  hash: Buffer
}

interface AccountEntry {
  record: AccountRecord
  planKey: string
}

const SHA256_HEX_LENGTH = 64
const HEX = /^[0-9a-f]{64}$/

export class KeyTable {
  private readonly byHash = new Map<string, KeyEntry>()
  private readonly byId = new Map<string, KeyEntry>()
  private readonly accounts = new Map<string, AccountEntry>()
  private readonly plans = new Map<string, Plan>()
  private readonly configuredPlans: Readonly<Record<string, Plan>>
  private readonly fallbackPlan: string

  constructor(options: KeyTableOptions = {}) {
    this.configuredPlans = options.plans ?? DEFAULT_PLANS
    this.fallbackPlan = normalizePlanName(options.fallbackPlan ?? FALLBACK_PLAN_NAME)
    for (const [name, plan] of Object.entries(this.configuredPlans)) this.plans.set(normalizePlanName(name), plan)
    if (!this.plans.has(this.fallbackPlan)) {
      throw new Error(`KeyTable: fallback plan "${this.fallbackPlan}" is not among the configured plans`)
    }
  }

  get keyCount(): number {
    return this.byId.size
  }

  applyAccount(r: AccountRecord): void {
    this.accounts.set(r.account_id, { record: r, planKey: normalizePlanName(r.plan) })
  }

  removeAccount(accountId: string): void {
    this.accounts.delete(accountId)
  }

  /** A Plan record overrides the configured plan of that name (or adds one). */
  applyPlan(r: PlanRecord): void {
    const plan = planFromRecord(r)
    this.plans.set(plan.name, plan)
  }

  /** Tombstone for a plan: back to the configured plan of that name, if any. */
  removePlan(name: string): void {
    const key = normalizePlanName(name)
    const configured = Object.entries(this.configuredPlans).find(([n]) => normalizePlanName(n) === key)?.[1]
    if (configured !== undefined) this.plans.set(key, configured)
    else if (key !== this.fallbackPlan) this.plans.delete(key)
  }

  applyKey(r: ApiKeyRecord): void {
    const hash = r.key_hash.toLowerCase()
    if (!HEX.test(hash)) {
      // Not a SHA-256 hex: it can never match a request; keep it out of the table.
      this.removeKey(r.key_id)
      return
    }
    const prev = this.byId.get(r.key_id)
    if (undoesRevocation(prev?.record, r)) return
    if (prev !== undefined && prev.record.key_hash.toLowerCase() !== hash)
      this.byHash.delete(prev.record.key_hash.toLowerCase())
    const entry: KeyEntry = { record: r, hash: Buffer.from(hash, 'hex') }
    this.byId.set(r.key_id, entry)
    this.byHash.set(hash, entry)
  }

  removeKey(keyId: string): void {
    const prev = this.byId.get(keyId)
    if (prev === undefined) return
    this.byId.delete(keyId)
    const hash = prev.record.key_hash.toLowerCase()
    if (this.byHash.get(hash) === prev) this.byHash.delete(hash)
  }

  /**
   * The active key with SHA-256 hex `hash` (see hashKey), its account and plan; undefined
   * when the key is unknown, not 'active', or its account is missing or disabled (all of
   * which the caller answers with INVALID_API_KEY, H1).
   */
  lookup(hash: string): KeyLookup | undefined {
    if (hash.length !== SHA256_HEX_LENGTH) return undefined
    const entry = this.byHash.get(hash)
    if (entry === undefined) return undefined
    // H1 "compare in constant time": the map hit is followed by a constant-time comparison
    // of the full hash, so the final accept/reject never depends on a short-circuit compare.
    if (!timingSafeEqual(Buffer.from(hash, 'hex'), entry.hash)) return undefined
    const key = entry.record
    if (key.status !== 'active') return undefined
    const account = this.accounts.get(key.account_id)
    if (account === undefined || account.record.status !== 'active') return undefined
    const plan = this.plans.get(account.planKey) ?? (this.plans.get(this.fallbackPlan) as Plan)
    return { key, account: account.record, plan }
  }
}
