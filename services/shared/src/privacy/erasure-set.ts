// The erasures in force, followed from the compacted erasures topic (A12): which (account, user)
// records are never projected, and which user ids ingest refuses (H55). Keyed by the record key the
// event topics use (userKey; pseudonymous with sealing on, A22), so the projector tests a record's Kafka
// key before decoding it.
import { erasureKey, type ErasureRecord } from '../../../../schemas/records.js'
import type { Pseudonyms } from './erasure-identity.js'

/**
 * Whether an erasure covers a record of its person received at `receivedAt`: everything received
 * up to the request; with suppression, everything (a record ingest accepted in the moment before it
 * heard of the erasure is still not projected). Records received after a request without
 * suppression are new data the account sent on purpose, and are projected (A12).
 */
export function erases(e: Pick<ErasureRecord, 'requested_at' | 'suppress'>, receivedAt: number): boolean {
  return e.suppress || receivedAt <= e.requested_at
}

/** The user ids an account refuses (H55): asked per item, so a pseudonymous erasure (A22) answers too. */
export interface SuppressedUsers {
  has(userId: string): boolean
}

export class ErasureSet {
  /** By the person's record key: pseudonymous (`account NUL pseudonym`) when pseudonyms are known (A22). */
  private readonly byKey = new Map<string, ErasureRecord>()
  private readonly accounts = new Set<string>()
  /** Suppressed people per account, by the part of their key after the account (pseudonym or user id). */
  private readonly suppressed = new Map<string, Set<string>>()

  /** With `pseudonyms` (the master key's, A15) every erasure is matched by the pseudonym, whichever
   *  format its record has; without, a record in clear by its user id and a pseudonymous one by its pseudonym. */
  constructor(private readonly pseudonyms?: Pseudonyms) {}

  get size(): number {
    return this.byKey.size
  }

  /** Applies a record of the erasures topic; a later record for the same person replaces the earlier. A
   *  request's earlier state read again (a follower reading the topic from its start after a rejoin, before
   *  compaction) does not replace a later state of the same request: its receipt steps stay. */
  apply(e: ErasureRecord): void {
    const person = this.personOf(e)
    const key = erasureKey(e.account_id, person)
    const held = this.byKey.get(key)
    if (held !== undefined && held.erasure_id === e.erasure_id && held.updated_at > e.updated_at) return
    this.byKey.set(key, e)
    this.accounts.add(e.account_id)
    let users = this.suppressed.get(e.account_id)
    if (e.suppress) {
      if (!users) this.suppressed.set(e.account_id, (users = new Set()))
      users.add(person)
    } else if (users?.delete(person) && users.size === 0) this.suppressed.delete(e.account_id)
  }

  get(accountId: string, userId: string): ErasureRecord | undefined {
    return this.byKey.get(erasureKey(accountId, this.person(accountId, userId)))
  }

  /** The erasure in force for the person of this record (the same request, or a later one). */
  forRecord(e: ErasureRecord): ErasureRecord | undefined {
    return this.byKey.get(erasureKey(e.account_id, this.personOf(e)))
  }

  /** The erasure whose person has this Kafka record key, if any (nothing is decoded while none exists): a
   *  sealed record's key is pseudonymous already, a clear one's user id is turned into its pseudonym. */
  forKey(key: Buffer | null): ErasureRecord | undefined {
    if (this.byKey.size === 0 || key === null) return undefined
    const text = key.toString('utf8')
    const direct = this.byKey.get(text)
    if (direct !== undefined || this.pseudonyms === undefined) return direct
    const cut = text.indexOf('\u0000')
    const accountId = text.slice(0, cut)
    if (cut < 0 || !this.accounts.has(accountId)) return undefined
    return this.get(accountId, text.slice(cut + 1))
  }

  /** Whether a record of (account, user) received at `receivedAt` must not be projected. */
  covers(accountId: string, userId: string, receivedAt: number): boolean {
    const e = this.get(accountId, userId)
    return e !== undefined && erases(e, receivedAt)
  }

  /** The suppressed user ids of an account (H55), or undefined when it has none. */
  suppressedOf(accountId: string): SuppressedUsers | undefined {
    const people = this.suppressed.get(accountId)
    return people && { has: (userId) => people.has(this.person(accountId, userId)) }
  }

  list(accountId?: string): ErasureRecord[] {
    const all = [...this.byKey.values()]
    return (accountId === undefined ? all : all.filter((e) => e.account_id === accountId)).sort(
      (a, b) => b.requested_at - a.requested_at,
    )
  }

  /** The person's pseudonym (A15); only for a set given the master key's pseudonyms. */
  pseudonymOf(accountId: string, userId: string): string {
    if (!this.pseudonyms) throw new Error('this erasure set knows no pseudonyms')
    return this.pseudonyms.of(accountId, userId)
  }

  /** How this set names a person of the account: their pseudonym when it knows pseudonyms, else the user id. */
  private person(accountId: string, userId: string): string {
    return this.pseudonyms ? this.pseudonyms.of(accountId, userId) : userId
  }

  private personOf(e: ErasureRecord): string {
    return e.pseudonym || this.person(e.account_id, e.user_id)
  }
}
