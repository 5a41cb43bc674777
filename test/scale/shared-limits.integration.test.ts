// Limits across two ingest instances (docs/scaling.md): both on the same topics and database, requests
// alternating between them as a load balancer would send them. With the same REDIS_URL the plan's
// limits hold for the pair; the same scenarios without Redis show each instance enforcing its own
// (so the Redis half fails on an ingest that ignores REDIS_URL). Needs the local stack with Redis
// (`stack.sh up --with-redis`); REDIS_URL overrides where that Redis is. Each test has its own key
// prefix, so it shares Redis with other tests safely.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { startServices, waitUntil, type TestServices } from '../support/harness.js'
import { http, freshMinute, sleep, expectError, type RawResponse } from '../support/contract.js'
import { hashKey } from '../../services/shared/src/accounts/key-hash.js'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:16379'
const PLANS = {
  persec: { requestsPerMinute: 100_000, eventsPerSecond: 100, eventsPerMonth: 1_000_000, emailsPerMonth: 0 },
  month50: { requestsPerMinute: 100_000, eventsPerSecond: 1000, eventsPerMonth: 50, emailsPerMonth: 0 },
}

interface Pair {
  a: TestServices
  b: TestServices
  urls: [string, string]
  /** A live key on `plan`, known to both instances' key tables. */
  key(plan: string): Promise<string>
}

/** Two ingest instances on one log; with `redis`, both share a fresh key prefix in it. The projector
 *  is off: the monthly test must be bounded by the shared counter alone. */
async function twoInstances(t: Test, redis: boolean): Promise<Pair> {
  const prefix = `test:${randomBytes(5).toString('hex')}:`
  // A generous call timeout: on a loaded test machine an event-loop stall past the default 100 ms
  // would send a call to the local fallback, which limiter-fallback.integration.test.ts tests.
  const env: Record<string, string> = {
    PLANS_JSON: JSON.stringify(PLANS),
    IP_REQUESTS_PER_MINUTE: '100',
    REDIS_URL: redis ? REDIS_URL : '',
    REDIS_KEY_PREFIX: prefix,
    REDIS_TIMEOUT_MS: '3000',
  }
  const a = await startServices(t, { projector: false, env })
  const b = await startServices(t, { projector: false, suffix: a.suffix, env })
  if (redis) {
    // Shared from the first request: an instance that starts in local mode counts its first burst
    // alone (CI once saw 101 of 250 accepted), so readiness must already say Redis answered.
    for (const s of [a, b]) {
      const ready = await http(s.ingestAdminUrl, '/health/ready', { method: 'GET' })
      t.equal(ready.body.checks?.limits?.detail, 'limits shared in Redis', 'shared before any request')
    }
    t.teardown(async () => {
      const r = new Redis(REDIS_URL)
      const keys = await r.keys(`${prefix}*`)
      if (keys.length) await r.del(...keys)
      r.disconnect()
    })
  }
  return {
    a,
    b,
    urls: [a.ingestUrl, b.ingestUrl],
    async key(plan) {
      const k = await a.createKey({ type: 'live', plan })
      await waitUntil(
        () => b.ingest!.deps.keys.lookup(hashKey(k.key)) !== undefined,
        10_000,
        'the key to reach the second instance',
      )
      return k.key
    },
  }
}

const json = { 'content-type': 'application/json' }
const ev = (i: number) => JSON.stringify({ event: 'page_viewed', user: { id: `u${i}` } })
const batch = (n: number) =>
  JSON.stringify({
    sent_at: new Date().toISOString(),
    events: Array.from({ length: n }, (_, i) => ({ type: 'event', event: 'item_added', user: { id: `u${i}` } })),
  })

/** `n` requests alternating between the two instances, `width` at a time, in order. */
async function alternate(
  urls: [string, string],
  n: number,
  width: number,
  send: (url: string, i: number) => Promise<RawResponse>,
): Promise<RawResponse[]> {
  const out: RawResponse[] = []
  for (let i = 0; i < n; i += width) {
    const part = await Promise.all(
      Array.from({ length: Math.min(width, n - i) }, (_, j) => send(urls[(i + j) % 2]!, i + j)),
    )
    out.push(...part)
  }
  return out
}

/** 250 requests of one minute, alternating; returns them with the clock before and after. */
async function minuteBurst(
  p: Pair,
  headers: Record<string, string>,
): Promise<{ rs: RawResponse[]; startMs: number; endMs: number }> {
  await freshMinute(30_000)
  const startMs = Date.now()
  const rs = await alternate(p.urls, 250, 10, (url, i) =>
    http(url, '/v1/event', { headers: { ...json, ...headers }, body: ev(i) }),
  )
  return { rs, startMs, endMs: Date.now() }
}

/** The 429s of a per-minute limit of 100: remaining 0, the window's reset, a Retry-After that ends the window. */
function check429s(t: Test, rs: RawResponse[], startMs: number, endMs: number) {
  const resets = new Set(rs.map((r) => r.headers['x-ratelimit-reset']))
  t.equal(resets.size, 1, 'every answer names the same window')
  const reset = Number([...resets][0])
  t.equal(reset % 60, 0)
  for (const r of rs.filter((r) => r.status === 429)) {
    expectError(t, r, 429, 'RATE_LIMIT_EXCEEDED')
    const retry = Number(r.headers['retry-after'])
    t.equal(r.headers['x-ratelimit-remaining'], '0')
    t.equal(r.headers['x-ratelimit-limit'], '100')
    t.same(r.body.error.details, { limit: 100, window_seconds: 60, retry_after_seconds: retry, requests_remaining: 0 })
    // the server computed retry = ceil((window end - its now) / 1000) with its now within the burst
    t.ok(
      reset - retry >= Math.floor(startMs / 1000) - 1 && reset - retry <= Math.ceil(endMs / 1000),
      `Retry-After ${retry} ends the window ${reset}`,
    )
  }
}

t.test('with REDIS_URL: the limits hold for both instances together', async (t) => {
  const p = await twoInstances(t, true)

  t.test('per-minute limit (H3): a Hobby key, 250 requests: exactly 100 accepted across the pair', async (t) => {
    const key = await p.key('hobby')
    const { rs, startMs, endMs } = await minuteBurst(p, { authorization: `Bearer ${key}` })
    const ok = rs.filter((r) => r.status === 200)
    t.equal(ok.length, 100, '100 accepted')
    t.equal(rs.filter((r) => r.status === 429).length, 150, 'the other 150 refused')
    t.same(
      ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => x - y),
      Array.from({ length: 100 }, (_, i) => i),
      'remaining counts the pair down 99..0, each value once',
    )
    t.ok(
      [0, 1].every((i) => ok.some((_, j) => rs.indexOf(ok[j]!) % 2 === i)),
      'both instances accepted some',
    )
    check429s(t, rs, startMs, endMs)
  })

  t.test('per-IP throttle of unauthenticated requests (H2): exactly 100 answered 401, then 429', async (t) => {
    const { rs, startMs, endMs } = await minuteBurst(p, {})
    t.equal(rs.filter((r) => r.status === 401).length, 100)
    t.equal(rs.filter((r) => r.status === 429).length, 150)
    for (const r of rs.filter((r) => r.status === 401)) expectError(t, r, 401, 'MISSING_AUTH_HEADER')
    check429s(t, rs, startMs, endMs)
  })

  t.test('per-second event limit (H4): 100 events/s across the pair', async (t) => {
    const key = await p.key('persec')
    // 20 batches of 10 at once; a burst that straddles a second boundary may pass more, so such an
    // attempt is repeated (no assertion depends on how long anything takes).
    let accepted = -1
    let rs: RawResponse[] = []
    for (let attempt = 0; attempt < 6 && accepted !== 100; attempt++) {
      await sleep(1000 - (Date.now() % 1000) + 5)
      rs = await alternate(p.urls, 20, 20, (url) =>
        http(url, '/v1/events', { headers: { ...json, authorization: `Bearer ${key}` }, body: batch(10) }),
      )
      accepted = rs.filter((r) => r.status === 200).reduce((n, r) => n + r.body.events_processed, 0)
      t.ok(accepted <= 200, `attempt ${attempt + 1}: ${accepted} events accepted`)
    }
    t.equal(accepted, 100, 'exactly the per-second limit in one second')
    for (const r of rs.filter((r) => r.status !== 200)) {
      expectError(t, r, 429, 'EVENT_RATE_LIMIT_EXCEEDED')
      t.same(r.body.error.details, { limit: 100, window_seconds: 1, retry_after_seconds: 1 })
      t.equal(r.headers['retry-after'], '1')
      t.equal(r.headers['x-ratelimit-limit'], '100000', 'the per-minute headers are there too')
    }
  })

  t.test('monthly limit (H5), projector off: exactly 50 live events across the pair', async (t) => {
    const key = await p.key('month50')
    // 12 batches of 7 (84 events): one batch is cut at the limit, its first items accepted (H5)
    const rs = await alternate(p.urls, 12, 1, (url) =>
      http(url, '/v1/events', { headers: { ...json, authorization: `Bearer ${key}` }, body: batch(7) }),
    )
    const accepted = rs.filter((r) => r.status === 200).reduce((n, r) => n + r.body.events_processed, 0)
    t.equal(accepted, 50)
    const partial = rs.filter((r) => r.status === 200 && r.body.data.failed_count > 0)
    t.equal(partial.length, 1, 'one batch partly accepted')
    t.same(
      partial[0]!.body.data.results.map((x: any) => x.success),
      [true, false, false, false, false, false, false],
      '50 = 7 * 7 + 1',
    )
    for (const r of rs.filter((r) => r.status !== 200)) {
      expectError(t, r, 429, 'MONTHLY_EVENT_LIMIT_EXCEEDED')
      t.equal(r.body.error.details.limit, 50)
      t.equal(r.body.error.details.used, 50)
    }
  })
})

t.test('without REDIS_URL: each instance enforces its own limits (the single-machine default)', async (t) => {
  const p = await twoInstances(t, false)
  const key = await p.key('hobby')
  const { rs } = await minuteBurst(p, { authorization: `Bearer ${key}` })
  t.equal(rs.filter((r) => r.status === 200).length, 200, 'each instance allows its own 100')
  t.equal(rs.filter((r) => r.status === 429).length, 50)
  const m = await p.key('month50')
  const ms = await alternate(p.urls, 12, 1, (url) =>
    http(url, '/v1/events', { headers: { ...json, authorization: `Bearer ${m}` }, body: batch(7) }),
  )
  t.equal(
    ms.filter((r) => r.status === 200).reduce((n, r) => n + r.body.events_processed, 0),
    84,
    'each instance grants its own 50 (the projector is off)',
  )
})
