// The limits of several ingest instances enforced together (docs/scaling.md): every check goes to Redis
// (redis-limits.ts) and, when Redis fails or is slower than its call timeout, is answered by this
// instance's own in-memory limiters instead (limiter-fallback.ts), so Redis never causes a 5xx.
// Without REDIS_URL main.ts chooses MemoryLimits instead (memory-limits.ts); both are the Limits of limits.ts.
import type { RequestLimiter, RateLimitResult } from './request-limiter.js'
import type { EventRateLimiter } from './event-rate-limiter.js'
import { reservationOf, type MonthlyQuota } from './monthly-quota.js'
import type { RedisLimits } from './redis-limits.js'
import type { LimiterFallback } from './limiter-fallback.js'
import { EVENT_WINDOW_SECONDS, REQUEST_WINDOW_SECONDS } from '../../../shared/src/accounts/plans.js'
import { eventRateResult, peekResult, requestResult } from './windows.js'
import type { EventAdmission, Limits, MonthlyAsk, MonthUsage } from './limits.js'
import { admitLocally, setProjected } from './memory-limits.js'

const MINUTE_MS = REQUEST_WINDOW_SECONDS * 1000
const SECOND_MS = EVENT_WINDOW_SECONDS * 1000

export interface SharedLimitsDeps {
  redis: RedisLimits
  fallback: LimiterFallback
  /** The instance's own limiters: answers while Redis is away. */
  local: { requests: RequestLimiter; events: EventRateLimiter; quota: MonthlyQuota }
  /** Called once for every check answered locally (metric). */
  onFallback?: () => void
  onError?: (what: string, err: unknown) => void
}

export class SharedLimits implements Limits {
  constructor(private readonly d: SharedLimitsDeps) {}

  get mode(): 'redis' | 'local' {
    return this.d.fallback.mode
  }

  describe(): string {
    return this.d.fallback.describe()
  }

  /** Redis could not be reached at start: say why in readiness until it answers. */
  markUnreachable(now: number, reason: string): void {
    this.d.fallback.failed(now, reason)
  }

  /** Redis answered a call sent at `startedAt` outside the limit checks (the start-up ping). */
  answered(startedAt: number): void {
    this.d.fallback.succeeded(startedAt)
  }

  /** The connection is back: the next check asks Redis rather than waiting for the probe interval. */
  probeNow(): void {
    this.d.fallback.probeNow()
  }

  /** The per-minute check of one request (H2/H3) on an account or client-IP bucket. */
  checkRequest(bucket: string, limit: number, now: number): Promise<RateLimitResult> {
    return this.viaRedis(
      now,
      async () => requestResult(await this.d.redis.takeRequest(bucket, limit, now, MINUTE_MS), limit, now, MINUTE_MS),
      () => this.d.local.requests.check(bucket, limit, now),
    )
  }

  /** RequestLimiter.checkGuarded across instances (H32). */
  checkGuarded(
    bucket: string,
    limit: number,
    refused: string,
    refusedLimit: number,
    now: number,
  ): Promise<RateLimitResult> {
    return this.viaRedis(
      now,
      async () => {
        const [before, spent] = await this.d.redis.takeGuarded(bucket, limit, refused, refusedLimit, now, MINUTE_MS)
        return spent >= refusedLimit
          ? requestResult(spent, refusedLimit, now, MINUTE_MS)
          : requestResult(before, limit, now, MINUTE_MS)
      },
      () => this.d.local.requests.checkGuarded(bucket, limit, refused, refusedLimit, now),
    )
  }

  /** RequestLimiter.refusedBody across instances (H32); where the check went, as far as the mode tells. */
  async refusedBody(bucket: string, refused: string, now: number): Promise<void> {
    if (this.d.fallback.mode === 'local') return this.d.local.requests.refusedBody(bucket, refused, now)
    await this.d.redis
      .refusedBody(bucket, refused, now, MINUTE_MS)
      .catch((err) => this.d.onError?.('refused request not recorded in Redis', err))
  }

  /** The bucket's headers for a response that was not counted. */
  peekRequest(bucket: string, limit: number, now: number): Promise<RateLimitResult> {
    return this.viaRedis(
      now,
      async () => peekResult(await this.d.redis.peekRequest(bucket, now, MINUTE_MS), limit, now, MINUTE_MS),
      () => this.d.local.requests.peek(bucket, limit, now),
    )
  }

  /** Per-second take of `n` events (H4), then, if it fits, the monthly reservation of the countable events (H5, H33, H34). */
  admitEvents(
    accountId: string,
    n: number,
    perSecond: number,
    month: MonthlyAsk,
    now: number,
  ): Promise<EventAdmission> {
    return this.viaRedis<EventAdmission>(
      now,
      async () => {
        const a = await this.d.redis.takeEvents(
          accountId,
          month.environment,
          n,
          perSecond,
          month.ids,
          month.limit,
          now,
          SECOND_MS,
        )
        // The month's answer first, beside the script's month (both in monthly-quota.ts), then the
        // second's, so this branch enters each file once (H79). A refused second charged nothing.
        const quota =
          month.ids.length === 0
            ? undefined
            : {
                ...reservationOf(a.monthBefore, a.charged, month.limit, now),
                granted: a.granted,
                accepted: a.accepted,
                newIds: a.newIds,
              }
        const rate = eventRateResult(a.secondBefore, n, perSecond, now, SECOND_MS)
        return rate.allowed && quota !== undefined ? { rate, quota, heldBy: this.d.redis } : { rate }
      },
      () => admitLocally(this.d.local, accountId, n, perSecond, month, now),
    )
  }

  /** The projector's exact monthly usage: into the local quota (used while Redis is away) and,
   *  when Redis answers, reconciled there (H34: raised to what is stored, lowered to what is stored
   *  plus what is in flight). Like a check, it probes a Redis that is away at most once per retry
   *  interval; a failure is not thrown (the fallback logs it). */
  async reconcile(monthKey: string, usage: MonthUsage, now: number): Promise<void> {
    setProjected(this.d.local.quota, monthKey, usage, now)
    const f = this.d.fallback
    if (usage.live.size + usage.test.size === 0 || !f.shouldTry(now)) return
    try {
      await this.d.redis.reconcileMonth(monthKey, usage.live, now, 'live')
      await this.d.redis.reconcileMonth(monthKey, usage.test, now, 'test')
      f.succeeded(now)
    } catch (err) {
      f.failed(now, (err as Error)?.message ?? String(err))
    }
  }

  private async viaRedis<T>(now: number, shared: () => Promise<T>, local: () => T): Promise<T> {
    const f = this.d.fallback
    if (!f.shouldTry(now)) {
      f.skipped()
      this.d.onFallback?.()
      return local()
    }
    try {
      const r = await shared()
      f.succeeded(now)
      return r
    } catch (err) {
      f.failed(now, (err as Error)?.message ?? String(err))
      this.d.onFallback?.()
      return local()
    }
  }
}
