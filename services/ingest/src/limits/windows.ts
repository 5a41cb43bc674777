// Fixed-window arithmetic shared by the in-memory limiters and the Redis ones: which window a time
// falls in, and the result a counter value gives (H3, H4). Both stores return "the count before this
// call", so the answer -- and the rate-limit headers built from it -- are the same whichever store
// counted.

import type { RateLimitResult } from './request-limiter.js'
import type { EventRateResult } from './event-rate-limiter.js'
import type { QuotaReservation } from './monthly-quota.js'

const ALLOWED: EventRateResult = Object.freeze({ allowed: true as const })

/** Start (ms) of the fixed window of length `windowMs` containing `now`. */
export const windowStart = (now: number, windowMs: number): number => now - (now % windowMs)

/** The per-minute answer for one request, given the bucket's count before it (a denied request
 *  consumes nothing, so `before` never passes `limit`). */
export function requestResult(before: number, limit: number, now: number, windowMs: number): RateLimitResult {
  const end = windowStart(now, windowMs) + windowMs
  const allowed = before + 1 <= limit
  return {
    allowed,
    limit,
    remaining: allowed ? limit - before - 1 : 0,
    resetSeconds: Math.ceil(end / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((end - now) / 1000)),
  }
}

/** The bucket's state for a response that was not itself counted (X-RateLimit-* only). */
export function peekResult(used: number, limit: number, now: number, windowMs: number): RateLimitResult {
  const end = windowStart(now, windowMs) + windowMs
  const remaining = used >= limit ? 0 : limit - used
  return {
    allowed: remaining > 0,
    limit,
    remaining,
    resetSeconds: Math.ceil(end / 1000),
    retryAfterSeconds: remaining > 0 ? 0 : Math.max(1, Math.ceil((end - now) / 1000)),
  }
}

/** The per-second answer for `n` events, given the account's count before them (all or nothing). */
export function eventRateResult(
  before: number,
  n: number,
  limit: number,
  now: number,
  windowMs: number,
): EventRateResult {
  if (before + n <= limit) return ALLOWED
  return {
    allowed: false,
    limit,
    retryAfterSeconds: Math.max(1, Math.ceil((windowStart(now, windowMs) + windowMs - now) / 1000)),
  }
}

/** The UTC calendar month containing `now`: its bounds, its key (`YYYY-MM`) and next month's start as ISO text. */
export interface MonthRange {
  start: number
  end: number
  key: string
  resetsAt: string
}

export function monthRange(now: number): MonthRange {
  const d = new Date(now)
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return { start, end, key: d.toISOString().slice(0, 7), resetsAt: new Date(end).toISOString() }
}

/** A monthly reservation (H5) from the month's count before it and what was granted (all of it counted). */
export function reservationOf(
  usedBefore: number,
  granted: number,
  limit: number,
  now: number,
  month: MonthRange = monthRange(now),
): QuotaReservation {
  return {
    granted,
    charged: granted,
    used: usedBefore + granted,
    limit,
    resetsAt: month.resetsAt,
    retryAfterSeconds: Math.max(1, Math.ceil((month.end - now) / 1000)),
  }
}

/** How many of `n` events fit when `used` of `limit` are taken (0..n). */
export function grantable(n: number, used: number, limit: number): number {
  const left = limit > used ? limit - used : 0
  return n < left ? (n > 0 ? n : 0) : left
}

/** Which countable items of a request a month admits, when some carry ids (H34). */
export interface IdAdmission {
  /** Per countable item, in order. */
  accepted: boolean[]
  granted: number
  /** Items newly counted: the others repeat an id already counted. */
  charged: number
  /** Ids counted by this request (to forget again if Kafka does not take the records). */
  newIds: string[]
}

/**
 * H34, the rule the Redis script (redis-limits.ts) follows step for step: an item whose id was already
 * counted (`seen`) is admitted without counting; the others are admitted in order while `left` lasts,
 * each counted once; an id repeated within the request goes as its first occurrence went. Items
 * without an id (undefined) are always new.
 */
export function admitIds(
  ids: ReadonlyArray<string | undefined>,
  seen: (id: string) => boolean,
  left: number,
): IdAdmission {
  const accepted: boolean[] = new Array(ids.length)
  const newIds: string[] = []
  const decided = new Map<string, boolean>()
  let granted = 0
  let charged = 0
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]
    let ok = id === undefined ? undefined : decided.get(id)
    if (ok === undefined) {
      if (id !== undefined && seen(id)) ok = true
      else if (charged < left) {
        ok = true
        charged++
        if (id !== undefined) newIds.push(id)
      } else ok = false
      if (id !== undefined) decided.set(id, ok)
    }
    accepted[i] = ok
    if (ok) granted++
  }
  return { accepted, granted, charged, newIds }
}
