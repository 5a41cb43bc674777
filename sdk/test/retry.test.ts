import t from 'tap'
import { backoffDelay, serverDelay, nextDelay, isRetriableStatus } from '../src/retry.js'

const p = { maxRetries: 5, minDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 }

t.test('backoff doubles per attempt, capped, with half of it jitter', async (t) => {
  t.equal(
    backoffDelay(0, p, () => 0),
    50,
  )
  t.equal(
    backoffDelay(0, p, () => 1),
    100,
  )
  t.equal(
    backoffDelay(1, p, () => 1),
    200,
  )
  t.equal(
    backoffDelay(3, p, () => 1),
    800,
  )
  t.equal(
    backoffDelay(4, p, () => 1),
    1000,
    'capped at maxDelay',
  )
  t.equal(
    backoffDelay(500, p, () => 0),
    500,
    'huge attempts stay capped, no Infinity',
  )
})

t.test('Retry-After as seconds or HTTP date, else X-RateLimit-Reset on 429', async (t) => {
  const h = (m: Record<string, string>) => (n: string) => m[n] ?? null
  const now = Date.parse('2024-05-01T12:00:00Z')
  t.equal(serverDelay(429, h({ 'retry-after': '3' }), now), 3000)
  t.equal(serverDelay(503, h({ 'retry-after': '2' }), now), 2000)
  t.equal(serverDelay(503, h({ 'retry-after': 'Wed, 01 May 2024 12:00:05 GMT' }), now), 5000)
  t.equal(serverDelay(429, h({ 'x-ratelimit-reset': String(now / 1000 + 7) }), now), 7000)
  t.equal(
    serverDelay(503, h({ 'x-ratelimit-reset': String(now / 1000 + 7) }), now),
    undefined,
    'reset only means something on 429',
  )
  t.equal(serverDelay(429, h({ 'retry-after': 'soon' }), now), undefined)
  t.equal(serverDelay(429, h({ 'x-ratelimit-reset': String(now / 1000 - 7) }), now), 0, 'a past reset means now')
})

t.test('the server delay wins over backoff, plus bounded jitter', async (t) => {
  t.equal(
    nextDelay(0, p, 3000, () => 0),
    3000,
  )
  t.ok(nextDelay(0, p, 3000, () => 1) <= 3000 + 1000)
  t.equal(
    nextDelay(2, p, undefined, () => 1),
    400,
  )
})

t.test('retriable statuses', async (t) => {
  for (const s of [408, 429, 500, 502, 503, 504]) t.ok(isRetriableStatus(s), String(s))
  for (const s of [400, 401, 403, 404, 413, 415]) t.notOk(isRetriableStatus(s), String(s))
})
