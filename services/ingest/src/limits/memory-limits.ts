// The limits of one instance, counted in its own memory (no REDIS_URL): the Limits interface over the
// three in-memory limiters, every answer synchronous. The admission and the reconciliation here are
// also shared-limits.ts's answers while Redis is away (it imports them; this file imports nothing of it).
import type { EventAdmission, Limits, MonthlyAsk, MonthUsage } from './limits.js'
import { RequestLimiter, type RateLimitResult } from './request-limiter.js'
import { EventRateLimiter } from './event-rate-limiter.js'
import { MonthlyQuota, quotaCounter } from './monthly-quota.js'
import { MemoryLimiterStore } from './limiter-store.js'

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

/** Per-second take of `n` events (H4), then, if it fits, the monthly reservation of the countable
 *  events (H5, H33), from this instance's own limiters: the whole check without Redis, and the
 *  fallback with it. Synchronous, so the in-memory hot path awaits nothing. */
export function admitLocally(
  local: { events: EventRateLimiter; quota: MonthlyQuota },
  accountId: string,
  n: number,
  perSecond: number,
  month: MonthlyAsk,
  now: number,
): EventAdmission {
  const rate = local.events.tryTake(accountId, n, perSecond, now)
  if (!rate.allowed || month.ids.length === 0) return { rate }
  return {
    rate,
    quota: local.quota.reserve(quotaCounter(accountId, month.environment), month.ids, month.limit, now),
    heldBy: local.quota,
  }
}

/** The projected usage into an instance's own quota (without Redis the only reconciliation, H34). */
export function setProjected(quota: MonthlyQuota, monthKey: string, usage: MonthUsage, now: number): void {
  for (const [account, count] of usage.live)
    quota.setProjectedUsage(quotaCounter(account, 'live'), monthKey, count, now)
  for (const [account, count] of usage.test)
    quota.setProjectedUsage(quotaCounter(account, 'test'), monthKey, count, now)
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

  /** Without Redis the only reconciliation (H34). */
  reconcile(monthKey: string, usage: MonthUsage, now: number): void {
    setProjected(this.local.quota, monthKey, usage, now)
  }
}
