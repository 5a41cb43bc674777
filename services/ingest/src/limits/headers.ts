// Rate-limit headers (docs/api.md Limits: on every response, H2) and the 429 errors of docs/api.md Errors,
// H4 and H5, as ServiceErrors the HTTP layer renders in one place.

import { ServiceError } from '../errors.js'
import type { EventRateResult } from './event-rate-limiter.js'
import type { QuotaReservation } from './monthly-quota.js'
import { EVENT_WINDOW_SECONDS, REQUEST_WINDOW_SECONDS } from '../../../shared/src/accounts/plans.js'
import type { RateLimitResult } from './request-limiter.js'

const WINDOW = String(REQUEST_WINDOW_SECONDS)

const seconds = (n: number) => (n === 1 ? '1 second' : `${n} seconds`)

/** X-RateLimit-* of the per-minute bucket (H3/H2), plus Retry-After when it denied. */
export function rateLimitHeaders(r: RateLimitResult): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(r.limit),
    'X-RateLimit-Remaining': String(r.remaining),
    'X-RateLimit-Reset': String(r.resetSeconds),
    'X-RateLimit-Window': WINDOW,
  }
  if (!r.allowed) h['Retry-After'] = String(r.retryAfterSeconds)
  return h
}

/** 429 RATE_LIMIT_EXCEEDED for a denied per-minute check (docs/api.md Errors). */
export function rateLimitError(r: RateLimitResult): ServiceError {
  const retry = Math.max(1, r.retryAfterSeconds)
  return new ServiceError(
    'RATE_LIMIT_EXCEEDED',
    429,
    `Rate limit exceeded. Try again in ${seconds(retry)}`,
    { limit: r.limit, window_seconds: REQUEST_WINDOW_SECONDS, retry_after_seconds: retry, requests_remaining: 0 },
    { headers: { ...rateLimitHeaders(r), 'Retry-After': String(retry) } },
  )
}

/**
 * 429 EVENT_RATE_LIMIT_EXCEEDED for a refused per-second take (H4). Pass the request's
 * per-minute result so the response still carries the X-RateLimit-* headers (H2).
 */
export function eventRateError(
  r: Extract<EventRateResult, { allowed: false }>,
  requestLimit?: RateLimitResult,
): ServiceError {
  return new ServiceError(
    'EVENT_RATE_LIMIT_EXCEEDED',
    429,
    `Event rate limit of ${r.limit} events per second exceeded. Try again in ${seconds(r.retryAfterSeconds)}`,
    { limit: r.limit, window_seconds: EVENT_WINDOW_SECONDS, retry_after_seconds: r.retryAfterSeconds },
    { headers: withRetryAfter(requestLimit, r.retryAfterSeconds) },
  )
}

/**
 * 429 MONTHLY_EVENT_LIMIT_EXCEEDED (H5), or MONTHLY_TEST_EVENT_LIMIT_EXCEEDED for test-key events
 * (H33), with Retry-After until the month turns. Used for the whole request when nothing was granted,
 * and as the per-item error of refused batch items.
 */
export function monthlyLimitError(
  r: QuotaReservation,
  requestLimit?: RateLimitResult,
  environment: 'live' | 'test' = 'live',
): ServiceError {
  const live = environment === 'live'
  return new ServiceError(
    live ? 'MONTHLY_EVENT_LIMIT_EXCEEDED' : 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED',
    429,
    `Monthly ${live ? '' : 'test '}event limit of ${r.limit} events reached; it resets at ${r.resetsAt}`,
    { limit: r.limit, used: r.used, resets_at: r.resetsAt },
    { headers: withRetryAfter(requestLimit, r.retryAfterSeconds) },
  )
}

function withRetryAfter(requestLimit: RateLimitResult | undefined, retryAfterSeconds: number): Record<string, string> {
  const h = requestLimit === undefined ? {} : rateLimitHeaders(requestLimit)
  h['Retry-After'] = String(retryAfterSeconds)
  return h
}
