// The erasures in force, followed from the compacted erasures topic (A12): which (account, user)
// records are never projected, and which user ids ingest refuses (H55). Keyed by the record key the
// event topics use (userKey), so the projector tests a record's Kafka key before decoding it.
import { erasureKey, type ErasureRecord } from '../../../../schemas/records.js'

/**
 * Whether an erasure covers a record of its person received at `receivedAt`: everything received
 * up to the request; with suppression, everything (a record ingest accepted in the moment before it
 * heard of the erasure is still not projected). Records received after a request without
 * suppression are new data the account sent on purpose, and are projected (A12).
 */
export function erases(e: Pick<ErasureRecord, 'requested_at' | 'suppress'>, receivedAt: number): boolean {
  return e.suppress || receivedAt <= e.requested_at
}

export class ErasureSet {
  private readonly byKey = new Map<string, ErasureRecord>()
  /** Suppressed user ids per account: ingest asks per request, then per item only for such accounts. */
  private readonly suppressed = new Map<string, Set<string>>()

  get size(): number {
    return this.byKey.size
  }

  /** Applies a record of the erasures topic; a later record for the same person replaces the earlier. */
  apply(e: ErasureRecord): void {
    this.byKey.set(erasureKey(e.account_id, e.user_id), e)
    let users = this.suppressed.get(e.account_id)
    if (e.suppress) {
      if (!users) this.suppressed.set(e.account_id, (users = new Set()))
      users.add(e.user_id)
    } else if (users?.delete(e.user_id) && users.size === 0) this.suppressed.delete(e.account_id)
  }

  get(accountId: string, userId: string): ErasureRecord | undefined {
    return this.byKey.get(erasureKey(accountId, userId))
  }

  /** The erasure whose person has this Kafka record key, if any (nothing is decoded while none exists). */
  forKey(key: Buffer | null): ErasureRecord | undefined {
    if (this.byKey.size === 0 || key === null) return undefined
    return this.byKey.get(key.toString('utf8'))
  }

  /** Whether a record of (account, user) received at `receivedAt` must not be projected. */
  covers(accountId: string, userId: string, receivedAt: number): boolean {
    const e = this.get(accountId, userId)
    return e !== undefined && erases(e, receivedAt)
  }

  /** The suppressed user ids of an account (H55), or undefined when it has none. */
  suppressedOf(accountId: string): ReadonlySet<string> | undefined {
    return this.suppressed.get(accountId)
  }

  list(accountId?: string): ErasureRecord[] {
    const all = [...this.byKey.values()]
    return (accountId === undefined ? all : all.filter((e) => e.account_id === accountId)).sort(
      (a, b) => b.requested_at - a.requested_at,
    )
  }
}
