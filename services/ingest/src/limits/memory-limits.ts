// The limits of one instance, counted in its own memory (no REDIS_URL): the Limits interface over the
// three in-memory limiters, every answer synchronous.
import type { Limits } from './limits.js'
import { RequestLimiter, type RateLimitResult } from './request-limiter.js'
import { EventRateLimiter } from './event-rate-limiter.js'
import { MonthlyQuota, quotaCounter } from './monthly-quota.js'
import { MemoryLimiterStore } from './limiter-store.js'
import { admitLocally, setProjected, type EventAdmission, type MonthlyAsk, type MonthUsage } from './shared-limits.js'

export interface LocalLimiters {
  requests: RequestLimiter
  events: EventRateLimiter
  quota: MonthlyQuota
}

/** A fresh set of the three in-memory limiters; `inFlightMs` as USAGE_IN_FLIGHT_MS (H34). */
export function localLimiters(inFlightMs?: number): LocalLimiters {
  return {
    requests: new RequestLimiter(new MemoryLimiterStore()),
    events: new EventRateLimiter(new MemoryLimiterStore()),
    quota: new MonthlyQuota(inFlightMs === undefined ? {} : { inFlightMs }),
  }
}

export class MemoryLimits implements Limits {
  readonly mode = 'memory'
  constructor(readonly local: LocalLimiters) {}

  describe(): string {
    return 'per instance, in memory (REDIS_URL not set)'
  }

  checkRequest(bucket: string, limit: number, now: number): RateLimitResult {
    return this.local.requests.check(bucket, limit, now)
  }

  checkGuarded(bucket: string, limit: number, refused: string, refusedLimit: number, now: number): RateLimitResult {
    return this.local.requests.checkGuarded(bucket, limit, refused, refusedLimit, now)
  }

  refusedBody(bucket: string, refused: string, now: number): void {
    this.local.requests.refusedBody(bucket, refused, now)
  }

  peekRequest(bucket: string, limit: number, now: number): RateLimitResult {
    return this.local.requests.peek(bucket, limit, now)
  }

  admitEvents(accountId: string, n: number, perSecond: number, month: MonthlyAsk, now: number): EventAdmission {
    return admitLocally(this.local, accountId, n, perSecond, month, now)
  }

  release(admission: EventAdmission, accountId: string, environment: 'live' | 'test', now: number): void {
    if (admission.quota !== undefined)
      this.local.quota.release(quotaCounter(accountId, environment), admission.quota, now)
  }

  /** Without Redis the only reconciliation (H34). */
  reconcile(monthKey: string, usage: MonthUsage, now: number): void {
    setProjected(this.local.quota, monthKey, usage, now)
  }
}
