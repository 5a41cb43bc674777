// Fixed-window arithmetic shared by the in-memory limiters and the Redis ones: which window a time
// falls in, and the result a counter value gives (H3, H4). Both stores return "the count before this
// call", so the answer -- and the rate-limit headers built from it -- are the same whichever store
// counted. The month's arithmetic (H5, H34) lives with the month's counter, in monthly-quota.ts, so
// a reservation is worked out in one file (H79).

import type { RateLimitResult } from './request-limiter.js'
import type { EventRateResult } from './event-rate-limiter.js'

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
