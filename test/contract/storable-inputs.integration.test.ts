// Contract suite, A4 and H9, H13, H25, H26: an input answered 200 is stored, and no input gets a 5xx.
// Times ClickHouse cannot hold are refused with 400 naming the field (pre-1970) or stored
// flagged (far future, H13); nesting is bounded; unpaired surrogates are refused; a test-key
// event never takes the event_id of a live one; dropped duplicates show on projector /metrics.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { http, expectError } from '../support/contract.js'
import { metricValue } from '../support/metrics-text.js'

const iso = (ms: number) => new Date(ms).toISOString()

t.test('inputs answered 200 are storable', async (t) => {
  const s = await startServices(t, { env: { IP_REQUESTS_PER_MINUTE: '10000' } })
  const live = await s.createKey({ type: 'live', plan: 'orbit' })
  const test = await s.createKey({ type: 'test', account: live.accountId })
  const db = s.database
  const accepted: string[] = []
  const ok = (r: { status: number; body: any }) => {
    for (const x of r.body?.data?.results ?? []) if (x.success) accepted.push(x.event_id)
  }

  t.test('timestamps: pre-1970 refused naming the field, far future flagged and stored (item 2)', async (t) => {
    for (const ts of ['1969-12-31T23:59:59Z', '1900-01-01T00:00:00Z']) {
      const r = await s.post('/v1/event', { event: 'old', user: { id: 'u1' }, timestamp: ts }, { key: live.key })
      expectError(t, r, 400, 'VALIDATION_ERROR', ts)
      t.same(
        r.body.error.details.errors.map((e: any) => e.path),
        ['/timestamp'],
        `${ts} names /timestamp`,
      )
    }
    const future = await s.post(
      '/v1/event',
      { event: 'future', user: { id: 'u1' }, timestamp: '2200-01-01T00:00:00Z' },
      { key: live.key },
    )
    t.equal(future.status, 200, '2200 is accepted (H13: replaced and flagged)')
    ok(future)
    const b2 = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [
          { type: 'event', event: 'old', user: { id: 'u1' }, timestamp: '1969-12-31T23:59:59Z' },
          { type: 'identify', user: { id: 'u1' }, timestamp: '1900-01-01T00:00:00Z', traits: { a: 1 } },
          { type: 'event', event: 'epoch', user: { id: 'u1' }, timestamp: '1970-01-01T00:00:01Z' },
          { type: 'event', event: 'now', user: { id: 'u1' } },
        ],
      },
      { key: live.key },
    )
    t.equal(b2.status, 200)
    t.same(
      b2.body.data.results.map((r: any) => r.success),
      [false, false, true, true],
      'items fail one by one (H11)',
    )
    t.match(b2.body.data.results[0].error, { code: 'VALIDATION_ERROR', message: /\/events\/0\/timestamp/ })
    t.match(b2.body.data.results[1].error, { code: 'VALIDATION_ERROR', message: /\/events\/1\/timestamp/ })
    ok(b2)
    const skewed = await s.post(
      '/v1/events',
      {
        sent_at: '1969-12-31T23:30:00Z',
        events: [{ type: 'event', event: 'reset_clock', user: { id: 'u1' }, timestamp: '1969-12-31T23:00:00Z' }],
      },
      { key: live.key },
    )
    t.equal(skewed.status, 200, 'pre-1970 client clock with pre-1970 sent_at is corrected and stored')
    ok(skewed)
  })

  t.test('nesting, surrogates and big bodies: 400, never 500 (item 4)', async (t) => {
    let deep = '1'
    for (let i = 0; i < 6000; i++) deep = `{"a":${deep}}`
    const send = (path: string, body: string) =>
      http(s.ingestUrl, path, {
        method: 'POST',
        headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
        body,
      })
    const r1 = await send('/v1/event', `{"event":"x","user":{"id":"u"},"properties":${deep}}`)
    expectError(t, r1, 400, 'VALIDATION_ERROR', '6,000 levels in properties')
    t.same(
      r1.body.error.details.errors.map((e: any) => e.path),
      ['/properties'],
    )
    const r2 = await send(
      '/v1/events',
      `{"sent_at":"${iso(Date.now())}","events":[{"type":"event","event":"x","user":{"id":"u"},"context":${deep}},{"type":"identify","user":{"id":"u"},"traits":${deep}}]}`,
    )
    expectError(t, r2, 400, 'VALIDATION_ERROR', 'batch items nested 6,000 levels')
    t.match(r2.body.error.details.results, [
      { index: 0, success: false, error: { message: /\/events\/0\/context/ } },
      { index: 1, success: false, error: { message: /\/events\/1\/traits/ } },
    ])
    const r3 = await send('/v1/event', `{"event":"x","user":{"id":"u","traits":${deep}}}`)
    t.same(
      r3.body.error.details.errors.map((e: any) => e.path),
      ['/user/traits'],
    )
    const r4 = await send('/v1/event', '['.repeat(400_000) + ']'.repeat(400_000))
    expectError(t, r4, 400, 'JSON_TOO_COMPLEX', 'a top-level array 400,000 deep (H25: refused before parsing)')
    const r5 = await send(
      '/v1/event',
      `{"event":"x","user":{"id":"u"},"unknown":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    )
    expectError(t, r5, 400, 'JSON_TOO_COMPLEX', 'an unknown field 100,000 deep (H25)')
    const keys = '{' + Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(',') + '}'
    const r6 = await send('/v1/event', `{"event":"x","user":{"id":"u"},"properties":${keys}}`)
    expectError(t, r6, 400, 'JSON_TOO_COMPLEX', '60,000 keys (over 32 KB; H25)')
    const r7 = await send(
      '/v1/events',
      `{"sent_at":"${iso(Date.now())}","junk":${keys},"events":[{"type":"event","event":"x","user":{"id":"u"},"properties":{"a":${'['.repeat(20)}${']'.repeat(20)}}}]}`,
    )
    // H25: fields beside sent_at and events are parsed only to be dropped, so their size is bounded.
    expectError(t, r7, 400, 'JSON_TOO_COMPLEX', 'an envelope with 60,000 unknown keys')
    const few = '{' + Array.from({ length: 300 }, (_, i) => `"k${i}":0`).join(',') + '}'
    const r7b = await send(
      '/v1/events',
      `{"sent_at":"${iso(Date.now())}","junk":${few},"events":[{"type":"event","event":"x","user":{"id":"u"},"properties":{"a":${'['.repeat(20)}${']'.repeat(20)}}}]}`,
    )
    t.equal(r7b.status, 200, 'an envelope with a few hundred unknown keys is fine')
    ok(r7b)
    const r8 = await send('/v1/event', '{"event":"x","user":{"id":"u"},"message_id":"m\\ud800"}')
    expectError(t, r8, 400, 'VALIDATION_ERROR', 'an unpaired surrogate in message_id')
    t.same(
      r8.body.error.details.errors.map((e: any) => e.path),
      ['/message_id'],
    )
    const r9 = await send(
      '/v1/events',
      `{"sent_at":"${iso(Date.now())}","events":[{"type":"identify","user":{"id":"u"},"traits":{"\\udc00":1}}]}`,
    )
    expectError(t, r9, 400, 'VALIDATION_ERROR', 'an unpaired surrogate in a trait key')
  })

  t.test('odd body shapes: never a 5xx', async (t) => {
    const send = (path: string, body: string, headers: Record<string, string> = {}) =>
      http(s.ingestUrl, path, {
        method: 'POST',
        headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json', ...headers },
        body,
      })
    const now = iso(Date.now())
    const bodies = [
      'null',
      '1',
      '"x"',
      '[]',
      '{}',
      'true',
      '{"event":"x","user":{"id":"u"},"context":{"__proto__":{"ip":"6.6.6.6"},"constructor":1,"toJSON":"x"}}',
      '{"event":"x","user":{"id":"u","traits":{"__proto__":{"email":"x@y.z"}}},"properties":{"toString":1}}',
      `{"sent_at":"${now}","events":[null,1,[],"x",{"type":"identify","user":{"id":"u"},"traits":{"__proto__":{"email":"x@y.z"}}}]}`,
      `{"sent_at":${'['.repeat(50_000)}${']'.repeat(50_000)},"events":[]}`,
      `{"sent_at":"${now}","events":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
      `{"sent_at":"${now}","events":[{"type":"event","event":"x","user":{"id":"u"},"timestamp":"2024-01-01T00:00:00.123456789+23:59"}]}`,
      '{"event":"x","user":{"id":"u"},"timestamp":"0000-01-01T00:00:00Z"}',
      '{"event":"x","user":{"id":"u"},"properties":{"n":-1e400,"m":1e-400,"big":123456789012345678901234567890}}',
    ]
    for (const body of bodies) {
      for (const path of ['/v1/event', '/v1/events']) {
        const r = await send(path, body)
        t.ok(r.status < 500, `${path} ${body.slice(0, 60)}: ${r.status}`)
        if (r.status === 200) ok(r as any)
      }
    }
    const ua = await send('/v1/event', '{"event":"x","user":{"id":"u"}}', { 'user-agent': 'ü\u00ff'.repeat(4000) })
    t.equal(ua.status, 200, 'a long user agent outside ASCII')
    ok(ua as any)
  })

  t.test('a test-key event never takes the event_id of a live one; duplicates are counted (item 3)', async (t) => {
    const mid = `shared-${Date.now()}`
    const body = { event: 'purchase', user: { id: 'buyer' }, message_id: mid }
    const a = await s.post('/v1/event', body, { key: test.key })
    const b = await s.post('/v1/event', body, { key: live.key })
    t.equal(a.status, 200)
    t.equal(b.status, 200)
    const liveId = b.body.data.results[0].event_id
    t.not(a.body.data.results[0].event_id, liveId, 'test and live get different event ids')
    ok(a)
    ok(b)
    const rows = await s.waitForRows<{ environment: string }>(
      `SELECT environment FROM ${db}.events FINAL WHERE account_id = '${live.accountId}' AND message_id = '${mid}' ORDER BY environment`,
      2,
    )
    t.same(
      rows.map((r) => r.environment),
      ['live', 'test'],
      'the live (billable) event is stored beside the test one',
    )
    // H16 still holds: a retry of the live message is the same event, stored once, and counted as dropped.
    const retry = await s.post('/v1/event', { ...body, timestamp: iso(Date.now() - 1000) }, { key: live.key })
    t.equal(retry.body.data.results[0].event_id, liveId)
    let text = ''
    await waitUntil(
      async () => {
        text = await (await fetch(`${s.projectorUrl}/metrics`)).text()
        return metricValue(text, 'projector_duplicate_records_dropped_total{kind="event"}') >= 1
      },
      30_000,
      'the projector to count the dropped retry',
    )
    t.ok(metricValue(text, 'projector_duplicate_records_dropped_total{kind="event"}') >= 1)
    const n = await s.query<{ n: string }>(`SELECT count() AS n FROM ${db}.events FINAL WHERE event_id = '${liveId}'`)
    t.equal(n[0]!.n, '1', 'the live event once')
  })

  t.test('every event answered 200 reaches ClickHouse; nothing was dead-lettered', async (t) => {
    const ids = accepted.map((id) => `'${id}'`).join(',')
    const rows = await s.waitForRows<{ event_id: string }>(
      `SELECT DISTINCT event_id FROM ${db}.events WHERE event_id IN (${ids}) UNION ALL SELECT DISTINCT event_id FROM ${db}.identifies WHERE event_id IN (${ids})`,
      new Set(accepted).size,
    )
    t.equal(
      new Set(rows.map((r) => r.event_id)).size,
      new Set(accepted).size,
      `${new Set(accepted).size} accepted, all stored`,
    )
    const text = await (await fetch(`${s.projectorUrl}/metrics`)).text()
    t.equal(metricValue(text, 'projector_dlq_records_total'), 0, 'no record dead-lettered')
  })
})
