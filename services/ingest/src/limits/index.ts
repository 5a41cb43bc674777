// Limits subsystem: plans, per-minute request limit (H2/H3, H32), per-second event limit (H4),
// monthly live-event quota (H5) and test-event cap (H33), retries counted once (H34), and the headers/errors they produce. The in-memory limiters are
// pure and I/O-free; with REDIS_URL, shared-limits.ts puts the counts of every instance in Redis
// (redis-limits.ts) and falls back to the in-memory ones while Redis is away (limiter-fallback.ts).
// Time is always passed in as `now` (ms since epoch).

export {
  DEFAULT_EVENTS_PER_SECOND,
  DEFAULT_PLANS,
  EVENT_WINDOW_SECONDS,
  FALLBACK_PLAN_NAME,
  REQUEST_WINDOW_SECONDS,
  normalizePlanName,
  parsePlans,
  planFromRecord,
  type Plan,
} from '../../../shared/src/accounts/plans.js'
export { monotonicClock, type Clock } from './monotonic-clock.js'
export { MemoryLimiterStore, type LimiterStore, type MemoryLimiterStoreOptions } from './limiter-store.js'
export { RequestLimiter, accountBucket, ipBucket, refusedBucket, type RateLimitResult } from './request-limiter.js'
export { EventRateLimiter, type EventRateResult } from './event-rate-limiter.js'
export { MonthlyQuota, monthKeyOf, quotaCounter, type QuotaReservation } from './monthly-quota.js'
export { eventRateError, monthlyLimitError, rateLimitError, rateLimitHeaders } from './headers.js'
export { RedisLimits, MONTH_KEY_MARGIN_MS } from './redis-limits.js'
export { LimiterFallback, type LimiterMode, type FallbackChange } from './limiter-fallback.js'
export type { Limits, Answer, EventAdmission, MonthlyAsk, MonthUsage, QuotaHolder } from './limits.js'
export { MemoryLimits, admitLocally, localLimiters, setProjected, type LocalLimiters } from './memory-limits.js'
export { chooseLimits, type ChosenLimits } from './choose-limits.js'
export { usageRefresh, type UsageRefresh } from './usage-refresh.js'
export { SharedLimits } from './shared-limits.js'
export { BodyBytesInFlight, type BodyBytesBudget } from './body-bytes-in-flight.js'
