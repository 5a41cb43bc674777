import t from 'tap'
import { ServiceError } from '../errors.js'
import { eventRateError, monthlyLimitError, rateLimitError, rateLimitHeaders } from './headers.js'
import { RequestLimiter } from './request-limiter.js'
import { EventRateLimiter } from './event-rate-limiter.js'
import { MonthlyQuota } from './monthly-quota.js'

const T0 = 1_700_000_040_000 // a minute boundary

t.test('headers of an allowed request', async (t) => {
  const r = new RequestLimiter().check('a:x', 100, T0 + 1000)
  t.same(rateLimitHeaders(r), {
    'X-RateLimit-Limit': '100',
    'X-RateLimit-Remaining': '99',
    'X-RateLimit-Reset': String((T0 + 60_000) / 1000),
    'X-RateLimit-Window': '60',
  })
})

t.test('RATE_LIMIT_EXCEEDED per docs/api.md Errors', async (t) => {
  const rl = new RequestLimiter()
  rl.check('a:x', 1, T0)
  const r = rl.check('a:x', 1, T0 + 30_000)
  const h = rateLimitHeaders(r)
  t.equal(h['Retry-After'], '30')
  t.equal(h['X-RateLimit-Remaining'], '0')
  const e = rateLimitError(r)
  t.ok(e instanceof ServiceError)
  t.equal(e.status, 429)
  t.equal(e.code, 'RATE_LIMIT_EXCEEDED')
  t.equal(e.message, 'Rate limit exceeded. Try again in 30 seconds')
  t.same(e.details, { limit: 1, window_seconds: 60, retry_after_seconds: 30, requests_remaining: 0 })
  t.equal(e.headers['Retry-After'], '30')
  t.equal(e.headers['X-RateLimit-Limit'], '1')
  t.equal(e.headers['X-RateLimit-Window'], '60')
  t.same(e.toBody().error.details, e.details)
})

t.test('EVENT_RATE_LIMIT_EXCEEDED per H4, carrying the per-minute headers', async (t) => {
  const l = new EventRateLimiter()
  l.tryTake('acc', 1000, 1000, T0)
  const denied = l.tryTake('acc', 1, 1000, T0 + 10)
  if (denied.allowed) throw new Error('expected a denial')
  const minute = new RequestLimiter().check('a:acc', 100, T0 + 10)
  const e = eventRateError(denied, minute)
  t.equal(e.status, 429)
  t.equal(e.code, 'EVENT_RATE_LIMIT_EXCEEDED')
  t.same(e.details, { limit: 1000, window_seconds: 1, retry_after_seconds: 1 })
  t.equal(e.message, 'Event rate limit of 1000 events per second exceeded. Try again in 1 second')
  t.equal(e.headers['Retry-After'], '1')
  t.equal(e.headers['X-RateLimit-Remaining'], '99')
  t.same(eventRateError(denied).headers, { 'Retry-After': '1' })
})

t.test('MONTHLY_EVENT_LIMIT_EXCEEDED per H5, Retry-After until the month turns', async (t) => {
  const q = new MonthlyQuota()
  const now = Date.UTC(2025, 2, 31, 23, 0, 0)
  q.reserve('acc', 1000, 1000, now)
  const r = q.reserve('acc', 2, 1000, now)
  t.equal(r.granted, 0)
  const e = monthlyLimitError(r)
  t.equal(e.status, 429)
  t.equal(e.code, 'MONTHLY_EVENT_LIMIT_EXCEEDED')
  t.same(e.details, { limit: 1000, used: 1000, resets_at: '2025-04-01T00:00:00.000Z' })
  t.equal(e.headers['Retry-After'], '3600')
  t.match(e.message, /1000.*2025-04-01T00:00:00.000Z/)
})
