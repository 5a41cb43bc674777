// The ingest HTTP contract (docs/api.md) on the assembled app in this process, against fakes of its
// dependencies (test/support/in-process-ingest.ts): the order of checks (H2), every error code of
// services/ingest/src/errors.ts a request can meet, the headers (rate limits, Retry-After, CORS,
// content type), 404/405, 413/415 and 503. The clock is the app's injected one, so no test waits for
// a window to pass. What needs real servers (Kafka holding a 200's records, deduplication, drains,
// drills, the browser) stays in the stack tier (`*.integration.test.ts`).
import t from 'tap'
import { gzipSync } from 'node:zlib'
import { startInProcessIngest, decodedValue, FIXED_NOW } from '../support/in-process-ingest.js'
import { expectError, headerRecord, RATE_HEADERS } from '../support/contract.js'
import { stalledRequest, postHead } from '../support/stalled-request.js'
import { RecordsTooLargeError } from '../../services/ingest/src/kafka/record-appender.js'

const ev = { event: 'page_viewed', user: { id: 'u1' } }
const sentAt = new Date(FIXED_NOW).toISOString()
const batchOf = (n: number) => ({
  sent_at: sentAt,
  events: Array.from({ length: n }, (_, i) => ({ type: 'event', event: 'page_viewed', user: { id: `u${i}` } })),
})
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('a single event: 200 once appended, one record on the events topic, headers of docs/api.md', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  const r = await s.post('/v1/event', ev, key)
  t.equal(r.status, 200)
  t.match(r.body, {
    success: true,
    events_processed: 1,
    data: { processed_count: 1, failed_count: 0, results: [{ index: 0, success: true }] },
  })
  t.match(r.body.data.results[0].event_id, UUID7, 'a UUIDv7 without message_id (H12)')
  t.equal(r.headers['content-type'], 'application/json; charset=utf-8')
  t.same(
    RATE_HEADERS.map((h) => r.headers[h]),
    ['100', '99', String(Math.ceil((FIXED_NOW + 30_000) / 1000)), '60'],
    'Hobby: 100 a minute, one used, the window ends at the next minute',
  )
  t.equal(s.appended.length, 1, 'one append')
  const [rec] = s.appended[0]!
  t.match(decodedValue(rec!), {
    name: 'Event',
    value: { event: 'page_viewed', user_id: 'u1', environment: 'live', event_id: r.body.data.results[0].event_id },
  })
})

t.test('a batch: identifies go to their topic, an invalid item fails alone (H11), all in one append', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  const r = await s.post(
    '/v1/events',
    {
      sent_at: sentAt,
      events: [
        { type: 'event', name: 'a', user: { id: 'u1' } },
        { type: 'identify', user: { id: 'u1' }, traits: { plan: 'pro' } },
        { type: 'event', user: { id: 'u2' } },
      ],
    },
    key,
  )
  t.equal(r.status, 200)
  t.match(r.body.data, { processed_count: 2, failed_count: 1 })
  t.match(r.body.data.results[2], { index: 2, success: false, error: { code: 'VALIDATION_ERROR' } })
  t.same(
    s.appended.map((a) => a.map((x) => decodedValue(x).name)),
    [['Event', 'Identify']],
  )
  t.notSame(s.appended[0]![0]!.topic, s.appended[0]![1]!.topic, 'events and identifies have their own topics')
  const none = await s.post('/v1/events', { sent_at: sentAt, events: [{ type: 'event', user: { id: 'u2' } }] }, key)
  expectError(t, none, 400, 'VALIDATION_ERROR', 'no item accepted')
  t.equal(none.body.error.details.results.length, 1)
})

t.test('authentication: each 401, and unauthenticated answers carry the client address bucket (H1, H2)', async (t) => {
  const s = await startInProcessIngest(t, { ACCEPTED_KEY_TYPES: 'live' })
  const live = s.addKey()
  const revoked = s.addKey({ status: 'revoked' })
  const test = s.addKey({ type: 'test' })
  expectError(t, await s.post('/v1/event', ev), 401, 'MISSING_AUTH_HEADER', 'no Authorization')
  expectError(
    t,
    await s.post('/v1/event', ev, undefined, { authorization: `Basic ${live}` }),
    401,
    'MISSING_AUTH_HEADER',
    'not Bearer',
  )
  expectError(
    t,
    await s.post('/v1/event', ev, 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789'),
    401,
    'INVALID_KEY_FORMAT',
    'another prefix',
  )
  expectError(
    t,
    await s.post('/v1/event', ev, live.slice(0, -1) + (live.endsWith('A') ? 'B' : 'A')),
    401,
    'INVALID_API_KEY',
    'unknown key',
  )
  expectError(t, await s.post('/v1/event', ev, revoked), 401, 'INVALID_API_KEY', 'revoked key')
  const r = await s.post('/v1/event', ev, test)
  expectError(t, r, 401, 'INVALID_API_KEY', 'a key type this deployment does not accept')
  t.equal(r.headers['x-ratelimit-limit'], '100', 'IP_REQUESTS_PER_MINUTE')
  t.equal(r.headers['x-ratelimit-remaining'], '94', 'six unauthenticated requests from this address')
  t.equal(s.appended.length, 0)
})

t.test('checks run in the order of H2: key, per-minute limit, body, validation, then limits on events', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  expectError(
    t,
    await s.post('/v1/event', 'not json', undefined, { 'content-type': 'text/plain' }),
    401,
    'MISSING_AUTH_HEADER',
    'the key before the body',
  )
  expectError(
    t,
    await s.post('/v1/event', 'not json', key, { 'content-type': 'text/plain' }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'the type before the JSON',
  )
  expectError(t, await s.post('/v1/event', '{"event":', key), 400, 'INVALID_JSON', 'JSON before validation')
  const bad = await s.post('/v1/event', { event: '', user: 'u1' }, key)
  expectError(t, bad, 400, 'VALIDATION_ERROR', 'validation')
  t.same(
    bad.body.error.details.errors.map((e: { path: string }) => e.path).sort(),
    ['/event', '/user'],
    'every problem listed',
  )
  // The three refused bodies above were given back to the minute (H32): only the 200s count.
  for (let i = 0; i < 100; i++) t.equal((await s.post('/v1/event', ev, key)).status, 200)
  const limited = await s.post('/v1/event', 'not json', key, { 'content-type': 'text/plain' })
  expectError(t, limited, 429, 'RATE_LIMIT_EXCEEDED', 'the per-minute limit before the body')
  t.match(limited.body.error.details, { limit: 100, window_seconds: 60, requests_remaining: 0 })
  t.equal(limited.headers['retry-after'], '30', 'the rest of the minute')
  t.equal(limited.headers['x-ratelimit-remaining'], '0')
  s.clock.now += 30_000
  t.equal((await s.post('/v1/event', ev, key)).status, 200, 'a new minute')
})

t.test('per-second events (H4) and the month (H5, H33) refuse with their 429 and details', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  for (let i = 0; i < 10; i++) t.equal((await s.post('/v1/events', batchOf(100), key)).status, 200)
  const second = await s.post('/v1/event', ev, key)
  expectError(t, second, 429, 'EVENT_RATE_LIMIT_EXCEEDED', 'the 1,001st event of the second')
  t.match(second.body.error.details, { limit: 1000, window_seconds: 1 })
  t.match(second.headers['retry-after'], /^\d+$/)
  s.clock.now += 1000
  const month = await s.post('/v1/event', ev, key)
  expectError(t, month, 429, 'MONTHLY_EVENT_LIMIT_EXCEEDED', 'the Hobby month is 1,000 live events')
  t.match(month.body.error.details, { limit: 1000, used: 1000, resets_at: '2025-07-01T00:00:00.000Z' })
  const test = s.addKey({ type: 'test' })
  for (let i = 0; i < 10; i++) {
    s.clock.now += 1000
    t.equal((await s.post('/v1/events', batchOf(100), test)).status, 200, 'test keys have a month of their own')
  }
  s.clock.now += 1000
  expectError(t, await s.post('/v1/event', ev, test), 429, 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED')
  t.equal(s.appended.flat().length, 2000, 'refused requests appended no record')
})

t.test(
  'bodies: 415 for types and codings, gzip accepted, 413 past the limit, 400 JSON_TOO_COMPLEX (H7, H24, H25)',
  async (t) => {
    const s = await startInProcessIngest(t, { SINGLE_BODY_LIMIT_BYTES: '2000' })
    const key = s.addKey({ plan: 'orbit' })
    expectError(t, await s.post('/v1/event', ev, key, { 'content-type': '' }), 415, 'UNSUPPORTED_MEDIA_TYPE', 'no type')
    const coding = await s.post('/v1/event', ev, key, { 'content-encoding': 'compress' })
    expectError(t, coding, 415, 'UNSUPPORTED_MEDIA_TYPE', 'an unknown coding')
    t.match(coding.body.error, {
      message: /compress/,
      details: { content_encoding: 'compress', supported: ['gzip', 'deflate', 'br', 'identity'] },
    })
    t.equal(
      (await s.post('/v1/event', gzipSync(JSON.stringify(ev)), key, { 'content-encoding': 'gzip' })).status,
      200,
      'gzip',
    )
    const big = await s.post('/v1/event', { ...ev, properties: { pad: 'x'.repeat(2000) } }, key)
    expectError(t, big, 413, 'PAYLOAD_TOO_LARGE', 'over SINGLE_BODY_LIMIT_BYTES')
    t.match(big.body.error.details, { limit_bytes: 2000 })
    const s2 = await startInProcessIngest(t)
    const key2 = s2.addKey({ plan: 'orbit' })
    const complex = await s2.post(
      '/v1/event',
      `{"event":"x","user":{"id":"u"},"properties":{"a":[${'0,'.repeat(40_000)}0]}}`,
      key2,
    )
    expectError(t, complex, 400, 'JSON_TOO_COMPLEX', 'more values than a valid event holds')
    t.match(complex.body.error.details, { max_values: Number })
  },
)

t.test('unknown paths 404 and other methods 405 with Allow, each with rate-limit headers', async (t) => {
  const s = await startInProcessIngest(t)
  expectError(t, await s.request('/v2/event', { method: 'POST' }), 404, 'NOT_FOUND')
  expectError(
    t,
    await s.request('/health/ready', { method: 'GET' }),
    404,
    'NOT_FOUND',
    'readiness is on the admin listener (H36)',
  )
  for (const [method, path] of [
    ['GET', '/v1/event'],
    ['PUT', '/v1/events'],
    ['DELETE', '/v1/events'],
  ]) {
    const r = await s.request(path!, { method })
    expectError(t, r, 405, 'METHOD_NOT_ALLOWED', `${method} ${path}`)
    t.equal(r.headers.allow, 'POST, OPTIONS')
  }
  const live = await s.request('/health/live', { method: 'GET' })
  t.same([live.status, live.body], [200, { status: 'ok' }])
  const doc = await s.request('/openapi.json', { method: 'GET' })
  t.equal(doc.status, 200)
  t.match(doc.body, { openapi: /^3\.1/, paths: { '/v1/event': {}, '/v1/events': {} } })
})

t.test('CORS (H15): any origin by default, a listed one echoed with Vary, preflights 204', async (t) => {
  const s = await startInProcessIngest(t)
  const pre = await s.request('/v1/events', {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  })
  t.equal(pre.status, 204)
  t.match(pre.headers, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'Authorization, Content-Type, Content-Encoding',
  })
  for (const h of RATE_HEADERS) t.match(pre.headers[h], /^\d+$/, `preflight ${h}`)
  const err = await s.post('/v1/event', ev, undefined, { origin: 'https://app.example' })
  t.equal(err.headers['access-control-allow-origin'], '*', 'errors are readable by the page too')
  t.match(err.headers['access-control-expose-headers'], /X-RateLimit-Remaining.*Retry-After/)
  const listed = await startInProcessIngest(t, { CORS_ORIGINS: 'https://a.example' })
  const a = await listed.request('/v1/event', { method: 'OPTIONS', headers: { origin: 'https://a.example' } })
  t.match(a.headers, { 'access-control-allow-origin': 'https://a.example', vary: 'Origin' })
  const b = await listed.request('/v1/event', { method: 'OPTIONS', headers: { origin: 'https://b.example' } })
  t.equal(b.headers['access-control-allow-origin'], undefined, 'an origin not listed gets no allow header')
})

t.test(
  '503 with Retry-After: starting, draining (Connection: close), Kafka not taking the records; 413 for records it never takes',
  async (t) => {
    const s = await startInProcessIngest(t)
    const key = s.addKey()
    s.setAccepting(false)
    const starting = await s.post('/v1/event', ev, key)
    expectError(t, starting, 503, 'SERVICE_UNAVAILABLE', 'starting')
    t.equal(starting.headers['retry-after'], '2')
    s.setAccepting(true)
    s.failAppends(new Error('KafkaJSNumberOfRetriesExceeded: broker down'))
    const down = await s.post('/v1/event', ev, key)
    expectError(t, down, 503, 'SERVICE_UNAVAILABLE', 'Kafka did not take the records (A4)')
    t.equal(down.headers['retry-after'], '2')
    s.failAppends(new RecordsTooLargeError('events', 1_000_000))
    const tooLarge = await s.post('/v1/event', ev, key)
    expectError(t, tooLarge, 413, 'PAYLOAD_TOO_LARGE', 'one user over max.message.bytes (H37)')
    t.match(tooLarge.body.error.details, { limit_bytes: 1_000_000 })
    s.failAppends(undefined)
    t.equal((await s.post('/v1/event', ev, key)).status, 200, 'a 503 gave its quota back: the retry passes')
    s.setDraining(true)
    const draining = await s.post('/v1/event', ev, key)
    expectError(t, draining, 503, 'SERVICE_UNAVAILABLE', 'draining')
    t.equal(draining.headers.connection, 'close', 'clients reconnect elsewhere')
  },
)

t.test('bodies being read are budgeted: 429 per account, 503 per instance, 408 for a stalled body (H24)', async (t) => {
  // The stalls that are not refused hold their bytes until BODY_READ_TIMEOUT_MS cuts them: long
  // enough that a loaded machine delivers the other stalls' bytes first.
  const env = {
    BODY_READ_TIMEOUT_MS: '2000',
    SINGLE_BODY_LIMIT_BYTES: '100000',
    BATCH_BODY_LIMIT_BYTES: '100000',
    BODY_IN_FLIGHT_ACCOUNT_BYTES: '150000',
    BODY_IN_FLIGHT_INSTANCE_BYTES: '200000',
  }
  const [account, instance] = await Promise.all([startInProcessIngest(t, env), startInProcessIngest(t, env)])
  const stall = (url: string, key: string) =>
    stalledRequest(
      url,
      postHead('/v1/events', 100_000, { authorization: `Bearer ${key}` }),
      Buffer.alloc(80_000, 0x20),
      30_000,
    )
  const k = account.addKey({ plan: 'orbit' })
  const [perAccount, perInstance] = await Promise.all([
    Promise.all([stall(account.url, k), stall(account.url, k)]),
    Promise.all([1, 2, 3].map(() => stall(instance.url, instance.addKey({ plan: 'orbit' })))),
  ])
  t.same(
    perAccount.map((o) => o.status).sort(),
    [408, 429],
    'one account: one refused past its budget, the other cut when its time ran out',
  )
  t.match(
    perAccount.find((o) => o.status === 429),
    {
      closed: true,
      headers: { 'retry-after': '1', connection: 'close' },
      body: { error: { code: 'BODY_BYTES_IN_FLIGHT_EXCEEDED', details: { limit_bytes: 150_000 } } },
    },
  )
  t.match(
    perAccount.find((o) => o.status === 408),
    { closed: true, body: { error: { code: 'REQUEST_TIMEOUT', details: { timeout_ms: 2000 } } } },
  )
  t.same(
    perInstance.map((o) => o.status).sort(),
    [408, 408, 503],
    'three accounts: the one past the instance budget refused',
  )
  t.match(
    perInstance.find((o) => o.status === 503),
    {
      closed: true,
      headers: { 'retry-after': '1', connection: 'close' },
      body: { error: { code: 'SERVICE_UNAVAILABLE' } },
    },
  )
})

t.test('the admin listener: readiness 200/503 with Retry-After, metrics count answers by code (H36)', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  await s.post('/v1/event', ev, key)
  await s.post('/v1/event', ev)
  const ready = await fetch(`${s.adminUrl}/health/ready`)
  t.equal(ready.status, 200)
  t.match(await ready.json(), { status: 'ok', checks: { kafka: { ok: true }, draining: { ok: true } } })
  s.setDraining(true)
  const unready = await fetch(`${s.adminUrl}/health`)
  t.equal(unready.status, 503)
  t.equal(unready.headers.get('retry-after'), '2')
  t.match(await unready.json(), { status: 'unavailable', checks: { draining: { ok: false } } })
  const metrics = await (await fetch(`${s.adminUrl}/metrics`)).text()
  t.match(metrics, /ingest_requests_total\{route="\/v1\/event",status="200",code="ok"\} 1/)
  t.match(metrics, /ingest_requests_total\{route="\/v1\/event",status="401",code="MISSING_AUTH_HEADER"\} 1/)
  t.equal(
    headerRecord((await fetch(`${s.url}/metrics`)).headers)['x-ratelimit-window'],
    '60',
    'the public port has no /metrics, and still says its window',
  )
})

t.test('403 USER_SUPPRESSED for an erased user (H55): alone, and per item in a batch', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  s.suppress(s.accountOf(key), 'gone')
  const single = await s.post('/v1/event', { event: 'x', user: { id: 'gone' } }, key)
  expectError(t, single, 403, 'USER_SUPPRESSED', 'the erased user')
  t.equal(s.appended.length, 0, 'nothing stored')
  const batch = await s.post(
    '/v1/events',
    {
      sent_at: sentAt,
      events: [
        { type: 'event', event: 'x', user: { id: 'gone' } },
        { type: 'event', event: 'x', user: { id: 'kept' } },
      ],
    },
    key,
  )
  t.equal(batch.status, 200, 'the other items are stored')
  t.match(batch.body.data, {
    processed_count: 1,
    failed_count: 1,
    results: [
      { index: 0, success: false, error: { code: 'USER_SUPPRESSED' } },
      { index: 1, success: true },
    ],
  })
  t.same(
    s.appended.flat().map((r) => decodedValue(r).value.user_id),
    ['kept'],
  )
})

t.test('a batch: 400 for an invalid envelope; past the month only the items over it fail (H5, H11)', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  const envelope = await s.post('/v1/events', { sent_at: sentAt, events: [] }, key)
  expectError(t, envelope, 400, 'VALIDATION_ERROR', 'no events')
  t.match(envelope.body.error.details.errors, [{ path: '/events' }])
  for (let i = 0; i < 9; i++) t.equal((await s.post('/v1/events', batchOf(100), key)).status, 200)
  t.equal((await s.post('/v1/events', batchOf(50), key)).status, 200, '950 of the Hobby month')
  s.clock.now += 1000
  const over = await s.post('/v1/events', batchOf(100), key)
  t.equal(over.status, 200, 'some items fit')
  t.match(over.body.data, { processed_count: 50, failed_count: 50 })
  t.match(over.body.data.results[49], { success: true })
  t.match(over.body.data.results[50], { success: false, error: { code: 'MONTHLY_EVENT_LIMIT_EXCEEDED' } })
  t.equal(s.appended.flat().length, 1000, 'exactly the month stored')
})

t.test('413 PAYLOAD_TOO_LARGE for a body inflating over the ratio (H24), before it is all inflated', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey({ plan: 'orbit' })
  const bomb = gzipSync(' '.repeat(900_000) + JSON.stringify(ev))
  const r = await s.post('/v1/event', bomb, key, { 'content-encoding': 'gzip' })
  expectError(t, r, 413, 'PAYLOAD_TOO_LARGE', 'a thousandfold inflation')
  t.match(r.body.error.details, { max_inflate_ratio: 100 })
  t.equal(s.appended.length, 0)
})

t.test('429 RATE_LIMIT_EXCEEDED once a key and address spent their budget of refused bodies (H32)', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  const other = s.addKey({ account: s.accountOf(key) })
  for (let i = 0; i < 10; i++) expectError(t, await s.post('/v1/event', '{"event":', key), 400, 'INVALID_JSON')
  const spent = await s.post('/v1/event', ev, key)
  expectError(t, spent, 429, 'RATE_LIMIT_EXCEEDED', 'even a valid request of that key from that address')
  t.match(spent.body.error.details, { limit: 10, window_seconds: 60 })
  t.equal(spent.headers['x-ratelimit-limit'], '10', "the budget's headers")
  t.equal(spent.headers['retry-after'], '30', 'to the end of the minute')
  t.equal((await s.post('/v1/event', ev, other)).status, 200, 'another key of the account is unaffected')
  s.clock.now += 30_000
  t.equal((await s.post('/v1/event', ev, key)).status, 200, 'a new minute')
})

t.test('500 INTERNAL_ERROR without details for a programmer error, and nothing appended', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  s.failEncoding(new TypeError('a bug in the codec'))
  const r = await s.post('/v1/event', ev, key)
  expectError(t, r, 500, 'INTERNAL_ERROR', 'not a 503: a retry would fail the same way')
  t.equal(r.body.error.details, undefined, 'a 500 never carries details (docs/api.md)')
  t.notMatch(JSON.stringify(r.body), /codec/, 'nor the cause')
  t.equal(r.headers['retry-after'], undefined)
  t.equal(s.appended.length, 0)
  s.failEncoding(undefined)
  t.equal((await s.post('/v1/event', ev, key)).status, 200)
})
