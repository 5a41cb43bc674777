// Per-minute request limit (H3): fixed 60 s windows aligned to the epoch minute, one bucket per
// account shared by all its live keys, a second one for its test keys (H32; docs/api.md Authentication 9), and one per client IP for requests
// that fail authentication (H2). A request counts once whatever its size: a batch is one request.

import { MemoryLimiterStore, type LimiterStore } from './limiter-store.js'
import { REQUEST_WINDOW_SECONDS } from '../../../shared/src/accounts/plans.js'
import { peekResult, requestResult, windowStart } from './windows.js'

export interface RateLimitResult {
  readonly allowed: boolean
  /** The bucket's limit (X-RateLimit-Limit). */
  readonly limit: number
  /** Requests left in this window after this one; 0 when denied, never negative. */
  readonly remaining: number
  /** Unix time in seconds at which the current window ends (X-RateLimit-Reset). */
  readonly resetSeconds: number
  /** Whole seconds until the window ends when denied (>= 1); 0 when allowed. */
  readonly retryAfterSeconds: number
}

/** Bucket of an authenticated request: the account, so all its keys share it (H3); test keys share a
 *  second one of the same size, so test traffic never starves live traffic (H32). */
export const accountBucket = (accountId: string, environment: 'live' | 'test' = 'live'): string =>
  environment === 'live' ? `a:${accountId}` : `a:${accountId}:test`
/** Requests of one key from one client address refused for their body (H32). */
export const refusedBucket = (keyId: string, ip: string): string => `x:${keyId}:${ip}`
/** Bucket of an unauthenticated request: the client IP (H2). */
export const ipBucket = (ip: string): string => `ip:${ip}`

export class RequestLimiter {
  private readonly windowMs: number

  constructor(
    private readonly store: LimiterStore = new MemoryLimiterStore(),
    windowSeconds: number = REQUEST_WINDOW_SECONDS,
  ) {
    this.windowMs = windowSeconds * 1000
  }

  /**
   * Count one request against `bucketKey` (see accountBucket/ipBucket) at time `now` (ms).
   * A denied request consumes nothing, so the counter never passes `limit`.
   */
  check(bucketKey: string, limit: number, now: number): RateLimitResult {
    const start = windowStart(now, this.windowMs)
    const before = this.store.take(bucketKey, start, this.windowMs, 1, limit, now)
    return requestResult(before, limit, now, this.windowMs)
  }

  /**
   * check(), unless `refused` (see refusedBucket) has had `refusedLimit` requests refused for their
   * body this window (H32): then the refused bucket's answer (denied), and nothing is counted.
   */
  checkGuarded(bucketKey: string, limit: number, refused: string, refusedLimit: number, now: number): RateLimitResult {
    const spent = this.store.get(refused, windowStart(now, this.windowMs))
    if (spent >= refusedLimit) return requestResult(spent, refusedLimit, now, this.windowMs)
    return this.check(bucketKey, limit, now)
  }

  /** A request counted in `bucketKey` at `now` was refused for its body (H32): given back there,
   *  counted in `refused`. */
  refusedBody(bucketKey: string, refused: string, now: number): void {
    const start = windowStart(now, this.windowMs)
    if (this.store.get(bucketKey, start) > 0) this.store.incr(bucketKey, start, this.windowMs, -1, now)
    this.store.incr(refused, start, this.windowMs, 1, now)
  }

  /** The bucket's state without counting a request (e.g. for headers on a response that
   *  was not itself counted). */
  peek(bucketKey: string, limit: number, now: number): RateLimitResult {
    return peekResult(this.store.get(bucketKey, windowStart(now, this.windowMs)), limit, now, this.windowMs)
  }
}
