// Per-minute request limit (H3): fixed 60 s windows aligned to the epoch minute, one bucket per
// account shared by all its keys (docs/api.md Authentication 9), and one per client IP for requests
// that fail authentication (H2). A request counts once whatever its size: a batch is one request.

import { MemoryLimiterStore, type LimiterStore } from './limiter-store.js'
import { REQUEST_WINDOW_SECONDS } from '../../../shared/src/accounts/plans.js'

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

/** Bucket of an authenticated request: the account, so all its keys share it (H3). */
export const accountBucket = (accountId: string): string => `a:${accountId}`
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
    const start = now - (now % this.windowMs)
    const end = start + this.windowMs
    const before = this.store.take(bucketKey, start, this.windowMs, 1, limit, now)
    const allowed = before + 1 <= limit
    return {
      allowed,
      limit,
      remaining: allowed ? limit - before - 1 : 0,
      resetSeconds: Math.ceil(end / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((end - now) / 1000)),
    }
  }

  /** The bucket's state without counting a request (e.g. for headers on a response that
   *  was not itself counted). */
  peek(bucketKey: string, limit: number, now: number): RateLimitResult {
    const start = now - (now % this.windowMs)
    const end = start + this.windowMs
    const used = this.store.get(bucketKey, start)
    const remaining = used >= limit ? 0 : limit - used
    return {
      allowed: remaining > 0,
      limit,
      remaining,
      resetSeconds: Math.ceil(end / 1000),
      retryAfterSeconds: remaining > 0 ? 0 : Math.max(1, Math.ceil((end - now) / 1000)),
    }
  }
}
