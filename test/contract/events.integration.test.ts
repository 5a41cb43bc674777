// Contract suite, accepted events: both success shapes (docs/api.md Endpoints, H12), batch items
// (H10, H11), time (H13), context (H14), idempotency (H16), each checked over HTTP and in
// the ClickHouse projection. TRUSTED_PROXIES names a host that is not loopback, so the
// X-Forwarded-For this test sends from 127.0.0.1 must be ignored.
import t from 'tap'
import { startServices } from '../support/harness.js'

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const UUID5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const iso = (ms: number) => new Date(ms).toISOString()

t.test('accepted events contract', async (t) => {
  const s = await startServices(t, { env: { TRUSTED_PROXIES: '10.9.9.9', IP_REQUESTS_PER_MINUTE: '10000' } })
  const { key, accountId } = await s.createKey({ type: 'live', plan: 'orbit' })
  const db = s.database
  const one = async <T>(sql: string) => (await s.waitForRows<T>(sql))[0]

  t.test('single event: shape A plus events_processed (shape B), UUIDv7 event_id (H12)', async (t) => {
    const r = await s.post(
      '/v1/event',
      {
        event: 'signup_completed',
        user: { id: 'u1' },
        properties: { plan: 'pro', n: 3, ok: true, day: '2024-05-01', tags: ['a'], nested: { x: 1 } },
      },
      { key },
    )
    t.equal(r.status, 200)
    t.same(Object.keys(r.body).sort(), ['data', 'events_processed', 'success'])
    t.same(Object.keys(r.body.data).sort(), ['failed_count', 'processed_count', 'results'])
    t.equal(r.body.success, true)
    t.equal(r.body.events_processed, 1, 'shape B')
    t.equal(r.body.data.processed_count, 1)
    t.equal(r.body.data.failed_count, 0)
    t.equal(r.body.data.results.length, 1)
    t.same(Object.keys(r.body.data.results[0]).sort(), ['event_id', 'index', 'success'])
    t.equal(r.body.data.results[0].index, 0)
    t.equal(r.body.data.results[0].success, true)
    t.match(r.body.data.results[0].event_id, UUID7)
    const row = await one<{ event: string; properties: string; environment: string; account_id: string }>(
      `SELECT event, properties, environment, account_id FROM ${db}.events FINAL WHERE event_id = '${r.body.data.results[0].event_id}'`,
    )
    t.same(
      { ...row, properties: JSON.parse(row.properties) },
      {
        event: 'signup_completed',
        properties: { plan: 'pro', n: 3, ok: true, day: '2024-05-01', tags: ['a'], nested: { x: 1 } },
        environment: 'live',
        account_id: accountId,
      },
    )
  })

  t.test('batch: one result per item in order; identify gets an event_id too (H11, H12)', async (t) => {
    const r = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [
          { type: 'event', event: 'a', user: { id: 'u1' } },
          { type: 'identify', user: { id: 'u1' }, traits: { plan: 'pro' } },
          { type: 'event', user: { id: 'u1' } },
          { type: 'event', name: 'b', user: { id: 'u2' } },
        ],
      },
      { key },
    )
    t.equal(r.status, 200, '200 when at least one item was accepted')
    t.equal(r.body.success, true)
    t.equal(r.body.events_processed, 3)
    t.equal(r.body.data.processed_count, 3)
    t.equal(r.body.data.failed_count, 1)
    const res = r.body.data.results
    t.same(
      res.map((x: any) => [x.index, x.success]),
      [
        [0, true],
        [1, true],
        [2, false],
        [3, true],
      ],
    )
    for (const i of [0, 1, 3]) t.match(res[i].event_id, UUID7, `item ${i} has a UUIDv7`)
    t.equal(new Set([res[0].event_id, res[1].event_id, res[3].event_id]).size, 3, 'distinct ids')
    t.notOk('event_id' in res[2], 'no event_id on the failed item')
    t.equal(res[2].error.code, 'VALIDATION_ERROR')
    t.type(res[2].error.message, 'string')
    const idf = await one<{ user_id: string }>(
      `SELECT user_id FROM ${db}.identifies FINAL WHERE event_id = '${res[1].event_id}'`,
    )
    t.equal(idf.user_id, 'u1', 'the identify is stored under its event_id')
    const n = await one<{ n: string }>(
      `SELECT count() AS n FROM ${db}.events FINAL WHERE event_id = '${res[1].event_id}'`,
    )
    t.equal(n.n, '0', 'an identify creates no event')
  })

  t.test('batch with no item accepted: 400 VALIDATION_ERROR with details.results (H11)', async (t) => {
    const r = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [
          { type: 'event', user: { id: 'u' } },
          { type: 'identify', user: 'bob' },
        ],
      },
      { key },
    )
    t.equal(r.status, 400)
    t.equal(r.body.success, false)
    t.equal(r.body.error.code, 'VALIDATION_ERROR')
    const results = r.body.error.details.results
    t.equal(results.length, 2)
    t.same(
      results.map((x: any) => [x.index, x.success, x.error.code]),
      [
        [0, false, 'VALIDATION_ERROR'],
        [1, false, 'VALIDATION_ERROR'],
      ],
    )
    t.same(
      results[0].error.details.errors.map((e: any) => e.path),
      ['/events/0/event'],
    )
    t.same(
      results[1].error.details.errors.map((e: any) => e.path),
      ['/events/1/user'],
    )
  })

  t.test('H10: `name` and `event` both name batch events; identify traits merge, top level wins', async (t) => {
    const uid = `h10_${Date.now()}`
    const ts = Date.now() - 60_000
    const r = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [
          { type: 'event', name: 'via_name', user: { id: uid }, timestamp: iso(ts) },
          { type: 'event', event: 'via_event', user: { id: uid }, timestamp: iso(ts + 1) },
          { type: 'event', event: 'event_wins', name: 'ignored', user: { id: uid }, timestamp: iso(ts + 2) },
          {
            type: 'identify',
            user: { id: uid, traits: { plan: 'free', company: 'Acme' } },
            traits: { plan: 'pro', email: 'ada@example.com' },
            timestamp: iso(ts + 3),
          },
          { type: 'event', event: 'with_traits', user: { id: uid, traits: { role: 'admin' } }, timestamp: iso(ts + 4) },
        ],
      },
      { key },
    )
    t.equal(r.status, 200)
    t.equal(r.body.events_processed, 5)
    const evs = await s.waitForRows<{ event: string }>(
      `SELECT event FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND user_id = '${uid}' ORDER BY timestamp_ms`,
      4,
    )
    t.same(
      evs.map((e) => e.event),
      ['via_name', 'via_event', 'event_wins', 'with_traits'],
    )
    const idf = await one<{ traits: string; email: string }>(
      `SELECT traits, email FROM ${db}.identifies FINAL WHERE event_id = '${r.body.data.results[3].event_id}'`,
    )
    t.same(
      JSON.parse(idf.traits),
      { plan: 'pro', company: 'Acme', email: 'ada@example.com' },
      'merged, top level winning',
    )
    t.equal(idf.email, 'ada@example.com', 'email trait sets the profile email')
    const traits = await s.waitForRows<{ trait_key: string; value: string }>(
      `SELECT trait_key, value FROM ${db}.user_traits FINAL WHERE account_id = '${accountId}' AND user_id = '${uid}' ORDER BY trait_key`,
      4,
    )
    t.same(
      traits.map((x) => [x.trait_key, JSON.parse(x.value)]),
      [
        ['company', 'Acme'],
        ['email', 'ada@example.com'],
        ['plan', 'pro'],
        ['role', 'admin'],
      ],
      'user_traits: merged identify traits plus the event user traits',
    )
    // The projector writes trait rows before events and identifies: wait for the identify's email.
    const user = await one<{ email: string }>(
      `SELECT email FROM ${db}.users_view WHERE account_id = '${accountId}' AND user_id = '${uid}' AND email != ''`,
    )
    t.equal(user.email, 'ada@example.com', 'users_view email')

    const uid2 = `${uid}_b`
    const r2 = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [{ type: 'identify', user: { id: uid2, email: 'bob@example.com', traits: { plan: 'free' } } }],
      },
      { key },
    )
    t.equal(r2.status, 200)
    const u2 = await one<{ email: string }>(
      `SELECT email FROM ${db}.users_view WHERE account_id = '${accountId}' AND user_id = '${uid2}' AND email != ''`,
    )
    t.equal(u2.email, 'bob@example.com', 'user.email on an identify sets the profile email')
  })

  t.test('H13: clock-skew correction, original timestamp kept, future timestamps flagged', async (t) => {
    const clientNow = Date.now() - 3_600_000 // the client clock is an hour behind
    const itemTs = clientNow - 10_000 // the event happened 10 s before the batch was sent
    const future = Date.now() + 48 * 3_600_000
    const r = await s.post(
      '/v1/events',
      {
        sent_at: iso(clientNow),
        events: [
          { type: 'event', event: 'skewed', user: { id: 'u' }, timestamp: iso(itemTs) },
          { type: 'event', event: 'no_timestamp', user: { id: 'u' } },
          { type: 'event', event: 'far_future', user: { id: 'u' }, timestamp: iso(clientNow + 25 * 3_600_000) },
          { type: 'identify', user: { id: 'u' }, timestamp: iso(itemTs) },
        ],
      },
      { key },
    )
    t.equal(r.status, 200)
    t.equal(r.body.events_processed, 4, 'a future timestamp is never rejected')
    type Row = {
      timestamp_ms: string
      original_timestamp_ms: string
      received_at_ms: string
      sent_at_ms: string
      timestamp_flagged: number
    }
    const cols =
      'toString(timestamp_ms) AS timestamp_ms, toString(original_timestamp_ms) AS original_timestamp_ms, toString(received_at_ms) AS received_at_ms, toString(sent_at_ms) AS sent_at_ms, timestamp_flagged'
    const get = (table: string, i: number) =>
      one<Row>(`SELECT ${cols} FROM ${db}.${table} FINAL WHERE event_id = '${r.body.data.results[i].event_id}'`)
    const skewed = await get('events', 0)
    t.equal(
      Number(skewed.timestamp_ms),
      Number(skewed.received_at_ms) - 10_000,
      'timestamp = received_at - (sent_at - timestamp)',
    )
    t.equal(Number(skewed.original_timestamp_ms), itemTs, 'original client timestamp kept')
    t.equal(Number(skewed.sent_at_ms), clientNow)
    t.equal(Number(skewed.timestamp_flagged), 0)
    const none = await get('events', 1)
    t.equal(none.timestamp_ms, none.received_at_ms, 'missing timestamp: received_at')
    t.equal(Number(none.original_timestamp_ms), 0)
    const fut = await get('events', 2)
    t.equal(fut.timestamp_ms, fut.received_at_ms, 'over 24 h ahead: replaced by received_at')
    t.equal(Number(fut.timestamp_flagged), 1, 'and flagged')
    t.equal(Number(fut.original_timestamp_ms), clientNow + 25 * 3_600_000)
    const idf = await get('identifies', 3)
    t.equal(Number(idf.timestamp_ms), Number(idf.received_at_ms) - 10_000, 'identifies are corrected too')

    const single = await s.post(
      '/v1/event',
      { event: 'single_future', user: { id: 'u' }, timestamp: iso(future) },
      { key },
    )
    t.equal(single.status, 200)
    const sf = await one<Row>(
      `SELECT ${cols} FROM ${db}.events FINAL WHERE event_id = '${single.body.data.results[0].event_id}'`,
    )
    t.equal(sf.timestamp_ms, sf.received_at_ms)
    t.equal(Number(sf.timestamp_flagged), 1)
    t.equal(Number(sf.original_timestamp_ms), future)
    const past = Date.UTC(2024, 4, 1, 12, 30, 0)
    const single2 = await s.post(
      '/v1/event',
      { event: 'single_past', user: { id: 'u' }, timestamp: '2024-05-01T14:30:00+02:00' },
      { key },
    )
    const sp = await one<Row>(
      `SELECT ${cols} FROM ${db}.events FINAL WHERE event_id = '${single2.body.data.results[0].event_id}'`,
    )
    t.equal(Number(sp.timestamp_ms), past, 'single event: no sent_at, the timestamp is taken as given (offset applied)')
    t.equal(Number(sp.sent_at_ms), 0)
    const single3 = await s.post(
      '/v1/event',
      { event: 'no_offset', user: { id: 'u' }, timestamp: '2024-05-01T12:30:00' },
      { key },
    )
    const sn = await one<Row>(
      `SELECT ${cols} FROM ${db}.events FINAL WHERE event_id = '${single3.body.data.results[0].event_id}'`,
    )
    t.equal(Number(sn.timestamp_ms), past, 'no offset means UTC (H9)')
  })

  t.test('H14: ip and user_agent in context; X-Forwarded-For from an untrusted peer is ignored', async (t) => {
    const r = await s.post(
      '/v1/event',
      { event: 'ctx', user: { id: 'u' }, context: { platform: 'ios', app_version: '1.2.3', ip: '6.6.6.6' } },
      {
        key,
        headers: { 'x-forwarded-for': '203.0.113.50', 'user-agent': 'ContractSuite/2.0 (iPhone)' },
      },
    )
    t.equal(r.status, 200)
    const row = await one<{ ip: string; user_agent: string; context: string }>(
      `SELECT ip, user_agent, context FROM ${db}.events FINAL WHERE event_id = '${r.body.data.results[0].event_id}'`,
    )
    t.equal(row.ip, '127.0.0.1', 'the socket peer, not the forwarded address')
    t.equal(row.user_agent, 'ContractSuite/2.0 (iPhone)')
    t.same(
      JSON.parse(row.context),
      { platform: 'ios', app_version: '1.2.3', ip: '127.0.0.1', user_agent: 'ContractSuite/2.0 (iPhone)' },
      'client context kept, server values win',
    )
    const b = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [{ type: 'event', event: 'ctx_batch', user: { id: 'u' }, context: { locale: 'de' } }],
      },
      { key, headers: { 'user-agent': 'Batcher/1' } },
    )
    const brow = await one<{ context: string }>(
      `SELECT context FROM ${db}.events FINAL WHERE event_id = '${b.body.data.results[0].event_id}'`,
    )
    t.same(JSON.parse(brow.context), { locale: 'de', ip: '127.0.0.1', user_agent: 'Batcher/1' }, 'batch items too')
  })

  t.test('H16: the same message_id gives the same event_id and is stored once', async (t) => {
    const mid = `msg-${Date.now()}`
    const body = { event: 'order_completed', user: { id: 'u' }, message_id: mid, timestamp: iso(Date.now() - 5000) }
    const a = await s.post('/v1/event', body, { key })
    const b = await s.post('/v1/event', body, { key })
    t.equal(a.status, 200)
    t.equal(b.status, 200, 'a retry is answered like the first send')
    const id = a.body.data.results[0].event_id
    t.match(id, UUID5, 'UUIDv5 derived from account and message_id')
    t.equal(b.body.data.results[0].event_id, id, 'same event_id twice')
    const mx = `${mid}-x`
    const sx = await s.post(
      '/v1/event',
      { event: 'e', user: { id: 'u' }, message_id: mx, timestamp: body.timestamp },
      { key },
    )
    const bx = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [
          { type: 'event', event: 'e', user: { id: 'u' }, message_id: mx },
          { type: 'event', event: 'e', user: { id: 'u' }, message_id: `${mid}-2` },
        ],
      },
      { key },
    )
    const bx2 = await s.post(
      '/v1/events',
      { sent_at: iso(Date.now()), events: [{ type: 'event', event: 'e', user: { id: 'u' }, message_id: mx }] },
      { key },
    )
    t.equal(
      bx.body.data.results[0].event_id,
      sx.body.data.results[0].event_id,
      'a batch item with the same message_id maps to the same event',
    )
    t.equal(bx2.body.data.results[0].event_id, sx.body.data.results[0].event_id, 'and so does its retry')
    t.not(bx.body.data.results[1].event_id, bx.body.data.results[0].event_id, 'another message_id, another event')
    const other = await s.createKey({ type: 'live', plan: 'orbit' })
    const c = await s.post('/v1/event', body, { key: other.key })
    t.not(c.body.data.results[0].event_id, id, 'the same message_id in another account is another event')

    await s.waitForRows(`SELECT event_id FROM ${db}.events WHERE event_id = '${bx2.body.data.results[0].event_id}'`)
    const n = await one<{ n: string; u: string }>(
      `SELECT count() AS n, uniqExact(event_id) AS u FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND message_id = '${mid}'`,
    )
    t.equal(n.u, '1', 'one event id')
    t.equal(n.n, '1', 'stored once (FINAL)')
  })

  // A retry without a client timestamp gets another received_at, so another sort key: the
  // projector's writer recognises the stored event_id and keeps the first write (writer.dropRetries).
  t.test('H16/A5: a retry without a client timestamp is stored once', async (t) => {
    const mid = `notime-${Date.now()}`
    const body = { event: 'retry_no_ts', user: { id: 'u' }, message_id: mid }
    const a = await s.post('/v1/event', body, { key })
    await new Promise((r) => setTimeout(r, 1100)) // the retry lands in another second
    const b = await s.post('/v1/event', body, { key })
    t.equal(b.body.data.results[0].event_id, a.body.data.results[0].event_id)
    // Both records are in Kafka; wait until the projector has passed the second one (a marker event
    // posted after it is visible), then the retry must not have added a row.
    const marker = await s.post('/v1/event', { event: 'after_retry', user: { id: 'u' } }, { key })
    await s.waitForRows(`SELECT event_id FROM ${db}.events WHERE event_id = '${marker.body.data.results[0].event_id}'`)
    const all = await one<{ n: string }>(
      `SELECT count() AS n FROM ${db}.events WHERE account_id = '${accountId}' AND message_id = '${mid}'`,
    )
    t.equal(all.n, '1', 'one row even before any merge')
    const n = await one<{ n: string }>(
      `SELECT count() AS n FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND message_id = '${mid}'`,
    )
    t.equal(n.n, '1', 'stored once (FINAL)')
  })
})
