// Contract suite, limits (docs/api.md Limits and the 429 row of Errors; H2-H6). Small custom plans
// (PLANS_JSON) reach each limit in a few requests. Fixed windows: freshMinute() keeps a
// per-minute test from straddling a window boundary; no assertion depends on elapsed time.
import t from 'tap'
import { startServices } from '../support/harness.js'
import { http, freshMinute, sleep, expectError, headerRecord, RATE_HEADERS } from '../support/contract.js'

const PLANS = {
  tiny: { requestsPerMinute: 3, eventsPerSecond: 1000, eventsPerMonth: 100_000, emailsPerMonth: 0 },
  persec: { requestsPerMinute: 10_000, eventsPerSecond: 3, eventsPerMonth: 100_000, emailsPerMonth: 0 },
  burst: { requestsPerMinute: 10_000, eventsPerSecond: 150, eventsPerMonth: 100_000, emailsPerMonth: 0 },
  quota: {
    requestsPerMinute: 10_000,
    eventsPerSecond: 1000,
    eventsPerMonth: 5,
    emailsPerMonth: 0,
    testEventsPerMonth: 20,
  },
}
const ev = (n = 1) => ({ event: 'page_viewed', user: { id: `u${n}` } })
const batch = (n: number, extra: object[] = []) => ({
  sent_at: new Date().toISOString(),
  events: [
    ...Array.from({ length: n }, (_, i) => ({ type: 'event', event: 'item_added', user: { id: `u${i}` } })),
    ...extra,
  ],
})
const nextMonthUtc = () => {
  const d = new Date()
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString()
}

t.test('limits contract', async (t) => {
  const s = await startServices(t, { env: { PLANS_JSON: JSON.stringify(PLANS), IP_REQUESTS_PER_MINUTE: '3' } })

  t.test(
    'per-minute limit: fixed window per account, shared by all its live keys, exact 429 (docs/api.md Errors, H3, H32)',
    async (t) => {
      const a = await s.createKey({ type: 'live', plan: 'tiny' })
      const b = await s.createKey({ type: 'live', account: a.accountId })
      const testKey = await s.createKey({ type: 'test', account: a.accountId })
      const other = await s.createKey({ type: 'live', plan: 'tiny' })
      await freshMinute()
      const r1 = await s.post('/v1/event', ev(), { key: a.key })
      const r2 = await s.post('/v1/events', batch(5), { key: b.key }) // a batch is one request
      const r3 = await s.post('/v1/event', { user: 'bare' }, { key: a.key }) // refused for its body: given back (H32)
      const r4 = await s.post('/v1/event', ev(), { key: a.key })
      t.same([r1.status, r2.status, r3.status, r4.status], [200, 200, 400, 200])
      t.same(
        [r1, r2, r3, r4].map((r) => r.headers.get('x-ratelimit-remaining')),
        ['2', '1', '1', '0'],
        'remaining counts down across both keys and endpoints; the 400 is not counted',
      )
      for (const r of [r1, r2, r3, r4]) {
        t.equal(r.headers.get('x-ratelimit-limit'), '3')
        t.equal(r.headers.get('x-ratelimit-window'), '60')
        t.equal(Number(r.headers.get('x-ratelimit-reset')) % 60, 0, 'reset is the end of a fixed minute')
        t.ok(
          Number(r.headers.get('x-ratelimit-reset')) * 1000 > Date.now() - 5000,
          'reset is a Unix time in seconds, in the future',
        )
        t.equal(r.headers.get('retry-after'), null, 'no Retry-After below the limit')
      }
      const reset = r1.headers.get('x-ratelimit-reset')

      for (const [what, key, path, body] of [
        ['live key, /v1/event', a.key, '/v1/event', ev()],
        ['another live key of the same account, /v1/events', b.key, '/v1/events', batch(1)],
      ] as const) {
        const r = await s.post(path, body, { key })
        expectError(t, r, 429, 'RATE_LIMIT_EXCEEDED', what)
        const d = r.body.error.details
        t.same(
          Object.keys(d).sort(),
          ['limit', 'requests_remaining', 'retry_after_seconds', 'window_seconds'],
          `${what}: details fields`,
        )
        t.equal(d.limit, 3)
        t.equal(d.window_seconds, 60)
        t.equal(d.requests_remaining, 0)
        t.ok(
          Number.isInteger(d.retry_after_seconds) && d.retry_after_seconds >= 1 && d.retry_after_seconds <= 60,
          `retry_after_seconds ${d.retry_after_seconds} in 1..60`,
        )
        t.equal(
          r.headers.get('retry-after'),
          String(d.retry_after_seconds),
          'Retry-After header equals details.retry_after_seconds',
        )
        t.equal(r.headers.get('x-ratelimit-remaining'), '0')
        t.equal(r.headers.get('x-ratelimit-limit'), '3')
        t.equal(r.headers.get('x-ratelimit-reset'), reset, 'same window')
        t.match(
          r.body.error.message,
          new RegExp(`Try again in ${d.retry_after_seconds} second`),
          'message says when to retry',
        )
      }
      // H2 order: the per-minute limit is checked before the body
      const bad = await http(s.ingestUrl, '/v1/event', {
        headers: { authorization: `Bearer ${a.key}`, 'content-type': 'text/plain' },
        body: 'x',
      })
      expectError(t, bad, 429, 'RATE_LIMIT_EXCEEDED', 'exhausted account, bad content type: 429 before 415')

      t.equal(
        (await s.post('/v1/event', ev(), { key: testKey.key })).status,
        200,
        'a test key of the account has a window of its own (H32)',
      )
      const o = await s.post('/v1/event', ev(), { key: other.key })
      t.equal(o.status, 200, 'another account on the same plan is not affected')
      t.equal(o.headers.get('x-ratelimit-remaining'), '2')
    },
  )

  t.test('unauthenticated requests are throttled per client IP (H2)', async (t) => {
    await freshMinute()
    const rs = []
    for (let i = 0; i < 3; i++)
      rs.push(
        await http(s.ingestUrl, '/v1/event', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ev()),
        }),
      )
    for (const r of rs) expectError(t, r, 401, 'MISSING_AUTH_HEADER')
    t.same(
      rs.map((r) => r.headers['x-ratelimit-limit']),
      ['3', '3', '3'],
      'the IP bucket limit (IP_REQUESTS_PER_MINUTE)',
    )
    t.same(
      rs.map((r) => r.headers['x-ratelimit-remaining']),
      ['2', '1', '0'],
    )
    const over = await http(s.ingestUrl, '/v1/events', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer svc_live_nope' },
      body: '{}',
    })
    expectError(t, over, 429, 'RATE_LIMIT_EXCEEDED', 'fourth unauthenticated request')
    t.same(over.body.error.details, {
      limit: 3,
      window_seconds: 60,
      retry_after_seconds: Number(over.headers['retry-after']),
      requests_remaining: 0,
    })
    const k = await s.createKey({ type: 'live', plan: 'launch' })
    const ok = await s.post('/v1/event', ev(), { key: k.key })
    t.equal(ok.status, 200, 'authenticated requests from the same IP use their account bucket')
    t.equal(ok.headers.get('x-ratelimit-limit'), '1000')
  })

  t.test('per-second event limit: EVENT_RATE_LIMIT_EXCEEDED (H4)', async (t) => {
    const k = await s.createKey({ type: 'live', plan: 'persec' })
    // all-or-nothing per request: a batch of more events than the per-second limit never passes
    const r = await s.post('/v1/events', batch(4), { key: k.key })
    expectError(t, r, 429, 'EVENT_RATE_LIMIT_EXCEEDED')
    t.same(r.body.error.details, { limit: 3, window_seconds: 1, retry_after_seconds: 1 })
    t.equal(r.headers.get('retry-after'), '1')
    t.equal(r.headers.get('x-ratelimit-limit'), '10000', 'the per-minute headers are still there')
    t.equal((await s.post('/v1/event', ev(), { key: k.key })).status, 200, 'a single event passes')

    // across both endpoints, per account: 3 singles and a 1-item batch in the same second give one refusal
    let seen = false
    for (let attempt = 0; attempt < 6 && !seen; attempt++) {
      await sleep(1000 - (Date.now() % 1000) + 20)
      const rs = await Promise.all([
        s.post('/v1/event', ev(1), { key: k.key }),
        s.post('/v1/event', ev(2), { key: k.key }),
        s.post('/v1/events', batch(1), { key: k.key }),
        s.post('/v1/event', ev(3), { key: k.key }),
      ])
      const refused = rs.filter((x) => x.status === 429)
      if (refused.length === 1) {
        seen = true
        t.equal(refused[0].body.error.code, 'EVENT_RATE_LIMIT_EXCEEDED')
        t.equal(rs.filter((x) => x.status === 200).length, 3)
      }
    }
    t.ok(seen, 'four requests of one event within one second: exactly one refused')

    const b = await s.createKey({ type: 'live', plan: 'burst' })
    let refusedBatch: any
    for (let attempt = 0; attempt < 6 && !refusedBatch; attempt++) {
      await sleep(1000 - (Date.now() % 1000) + 20)
      const rs = await Promise.all([
        s.post('/v1/events', batch(100), { key: b.key }),
        s.post('/v1/events', batch(100), { key: b.key }),
      ])
      refusedBatch = rs.find((x) => x.status === 429)
      if (refusedBatch)
        t.equal(rs.filter((x) => x.status === 200).length, 1, 'one batch of 100 passes, the other is refused whole')
    }
    t.ok(refusedBatch, 'two batches of 100 against a limit of 150/s')
    t.same(refusedBatch?.body.error.details, { limit: 150, window_seconds: 1, retry_after_seconds: 1 })
  })

  t.test('monthly event limit: partial batch acceptance, 429 with details (H5)', async (t) => {
    const live = await s.createKey({ type: 'live', plan: 'quota' })
    const r1 = await s.post('/v1/events', batch(3), { key: live.key })
    t.equal(r1.status, 200)
    t.equal(r1.body.events_processed, 3)

    // 2 left: the first 2 events pass, the rest fail individually; the identify is not an event
    const r2 = await s.post(
      '/v1/events',
      batch(4, [{ type: 'identify', user: { id: 'u1', traits: { plan: 'pro' } } }]),
      { key: live.key },
    )
    t.equal(r2.status, 200, 'at least one item accepted: 200 (H11)')
    t.same(
      r2.body.data.results.map((r: any) => r.success),
      [true, true, false, false, true],
    )
    t.equal(r2.body.data.processed_count, 3)
    t.equal(r2.body.data.failed_count, 2)
    for (const item of r2.body.data.results.slice(2, 4)) {
      t.equal(item.error.code, 'MONTHLY_EVENT_LIMIT_EXCEEDED')
      t.type(item.error.message, 'string')
      t.notOk('event_id' in item, 'no event_id on a failed item')
    }
    t.same(r2.body.data.results[2].error.details, { limit: 5, used: 5, resets_at: nextMonthUtc() })

    const r3 = await s.post('/v1/event', ev(), { key: live.key })
    expectError(t, r3, 429, 'MONTHLY_EVENT_LIMIT_EXCEEDED', 'single event past the limit')
    t.same(r3.body.error.details, { limit: 5, used: 5, resets_at: nextMonthUtc() })
    const retry = Number(r3.headers.get('retry-after'))
    const untilMonth = (Date.parse(nextMonthUtc()) - Date.now()) / 1000
    t.ok(
      Number.isInteger(retry) && retry >= 1 && retry <= 31 * 86400,
      `Retry-After ${retry} is whole seconds within a month`,
    )
    t.ok(Math.abs(retry - untilMonth) < 3600, 'Retry-After is the time until the month turns')

    const r4 = await s.post('/v1/events', batch(2), { key: live.key })
    expectError(t, r4, 429, 'MONTHLY_EVENT_LIMIT_EXCEEDED', 'batch with no item accepted')
    t.equal(r4.body.error.details.limit, 5)
    t.equal(r4.body.error.details.used, 5)
    t.equal(r4.body.error.details.resets_at, nextMonthUtc())
    t.same(
      r4.body.error.details.results?.map((r: any) => [r.index, r.success, r.error?.code]),
      [
        [0, false, 'MONTHLY_EVENT_LIMIT_EXCEEDED'],
        [1, false, 'MONTHLY_EVENT_LIMIT_EXCEEDED'],
      ],
      'per-item results of the refused batch (H11)',
    )
    t.ok(r4.headers.get('retry-after'), 'Retry-After')

    const idOnly = await s.post(
      '/v1/events',
      { sent_at: new Date().toISOString(), events: [{ type: 'identify', user: { id: 'u9' } }] },
      { key: live.key },
    )
    t.equal(idOnly.status, 200, 'identifies still pass when the event quota is used up')

    // H6: a test key of the same account is not limited by the live quota, and its events are stored as test
    const test = await s.createKey({ type: 'test', account: live.accountId })
    const r5 = await s.post('/v1/events', batch(7), { key: test.key })
    t.equal(r5.status, 200, 'test key: 7 events past a 5-event limit')
    t.equal(r5.body.events_processed, 7)
    const ids = r5.body.data.results.map((r: any) => `'${r.event_id}'`).join(',')
    const rows = await s.waitForRows<{ environment: string; n: string }>(
      `SELECT environment, count() AS n FROM ${s.database}.events FINAL WHERE event_id IN (${ids}) GROUP BY environment`,
    )
    t.same(rows, [{ environment: 'test', n: '7' }], "stored with environment = 'test'")
  })

  t.test(
    'test-key events never count toward the monthly live limit (H6), and have a cap of their own (H33)',
    async (t) => {
      const test = await s.createKey({ type: 'test', plan: 'quota' })
      const live = await s.createKey({ type: 'live', account: test.accountId })
      for (let i = 0; i < 3; i++)
        t.equal((await s.post('/v1/events', batch(4), { key: test.key })).status, 200, `test batch ${i}`)
      const single = await s.post('/v1/event', ev(), { key: test.key })
      t.equal(single.status, 200)
      const r = await s.post('/v1/events', batch(5), { key: live.key })
      t.equal(r.status, 200)
      t.equal(r.body.events_processed, 5, 'the live key still has all 5 events of the month')
      t.equal(s.ingest!.deps.quota.used(live.accountId, Date.now()), 5)
      const stored = await s.waitForRows<{ environment: string }>(
        `SELECT environment FROM ${s.database}.events FINAL WHERE event_id = '${single.body.data.results[0].event_id}'`,
      )
      t.equal(stored[0].environment, 'test')

      const last = await s.post('/v1/events', batch(8), { key: test.key })
      t.equal(last.status, 200)
      t.equal(last.body.events_processed, 7, "13 + 7 = the plan's 20 test events")
      t.match(last.body.data.results[7], {
        success: false,
        error: {
          code: 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED',
          details: { limit: 20, used: 20, resets_at: nextMonthUtc() },
        },
      })
      const over = await s.post('/v1/event', ev(), { key: test.key })
      expectError(t, over, 429, 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED', 'past the test cap')
      t.ok(Number(over.headers.get('retry-after')) >= 1, 'Retry-After until the month turns')
      t.ok(over.headers.get('x-ratelimit-limit'), 'and the rate-limit headers')
      t.equal(
        (await s.post('/v1/event', ev(), { key: live.key })).status,
        429,
        'the live quota is still its own (spent above)',
      )
    },
  )

  t.test('every response carries the four X-RateLimit-* headers (docs/api.md Limits, H2)', async (t) => {
    const k = await s.createKey({ type: 'live', plan: 'launch' })
    const cases: Array<[string, Promise<{ status: number; headers: Headers | Record<string, string> }>]> = [
      ['200', s.post('/v1/event', ev(), { key: k.key })],
      ['400', s.post('/v1/event', {}, { key: k.key })],
      ['404', http(s.ingestUrl, '/nope', { method: 'GET' })],
      ['405', http(s.ingestUrl, '/v1/event', { method: 'GET' })],
      [
        '204 preflight',
        http(s.ingestUrl, '/v1/event', {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        }),
      ],
      ['openapi', http(s.ingestUrl, '/openapi.json', { method: 'GET' })],
    ]
    for (const [what, p] of cases) {
      const r = await p
      const h = headerRecord(r.headers)
      for (const name of RATE_HEADERS) t.match(h[name], /^\d+$/, `${what} (${r.status}): ${name}`)
    }
  })
})
