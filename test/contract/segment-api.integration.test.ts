// Contract suite, Segment-compatible API (docs/api.md Segment-compatible API; H49-H53): every call
// type on its path, every place a write key goes, the same errors and rate-limit headers as our own
// routes, and what an analyst reads afterwards: rows, anonymous ids, identity links, groups.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startServices } from '../support/harness.js'

const basic = (key: string) => 'Basic ' + Buffer.from(key + ':').toString('base64')

t.test('Segment-compatible API', async (t) => {
  const s = await startServices(t, { env: { IP_REQUESTS_PER_MINUTE: '10000' } })
  const { key, accountId } = await s.createKey({ type: 'live', plan: 'orbit' })
  const db = s.database
  const send = (path: string, body: unknown, headers: Record<string, string> = { authorization: basic(key) }) =>
    s.post(path, body, { headers })
  const anon = `anon-${randomUUID()}`
  const user = `user-${randomUUID()}`

  t.test('a write key as Basic user name, as Bearer, or in the body; none is 401 with our code', async (t) => {
    const ids = [randomUUID(), randomUUID(), randomUUID()]
    const track = (messageId: string, extra = {}) => ({
      type: 'track',
      event: 'auth_checked',
      userId: 'auth-user',
      messageId,
      ...extra,
    })
    const r1 = await send('/v1/track', track(ids[0]!))
    t.equal(r1.status, 200, 'Basic')
    t.ok(r1.headers.get('x-ratelimit-limit'), 'rate-limit headers as on our own routes')
    t.equal((await send('/v1/track', track(ids[1]!), { authorization: `Bearer ${key}` })).status, 200, 'Bearer')
    t.equal((await send('/v1/track', track(ids[2]!, { writeKey: key }), {})).status, 200, 'writeKey in the body')
    const none = await send('/v1/track', track(randomUUID()), {})
    t.equal(none.status, 401)
    t.equal(none.body.error.code, 'MISSING_AUTH_HEADER')
    const wrong = await send('/v1/track', track(randomUUID()), { authorization: basic('svc_live_' + 'x'.repeat(40)) })
    t.equal(wrong.status, 401)
    t.equal(wrong.body.error.code, 'INVALID_API_KEY')
    const rows = await s.waitForRows<{ message_id: string }>(
      `SELECT message_id FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND event = 'auth_checked'`,
      3,
    )
    t.same(
      rows.map((r) => r.message_id).sort(),
      [...ids].sort(),
      'the three accepted calls stored, the refused ones not',
    )
  })

  t.test('each call type on its path, with and without a trailing slash; /v1/import is /v1/batch', async (t) => {
    const ctx = {
      library: { name: 'analytics-test', version: '1.0.0' },
      device: { model: 'Pixel 8', type: 'android' },
      os: { name: 'Android', version: '14' },
    }
    const calls: Array<[string, Record<string, unknown>]> = [
      [
        '/v1/page',
        {
          anonymousId: anon,
          name: 'Home',
          category: 'Docs',
          properties: { url: 'https://example.com/', path: '/' },
          context: ctx,
        },
      ],
      ['/v1/screen/', { anonymousId: anon, name: 'Settings', properties: { from: 'menu' }, context: ctx }],
      ['/v1/identify', { anonymousId: anon, userId: user, traits: { email: 'seg@example.com', plan: 'pro' } }],
      [
        '/v1/track/',
        {
          anonymousId: anon,
          userId: user,
          event: 'signup_completed',
          properties: { plan: 'pro' },
          integrations: { All: false },
        },
      ],
      ['/V1/Group', { userId: user, groupId: 'acme', traits: { name: 'Acme', employees: 40 } }],
      ['/v1/alias', { previousId: 'old-login-id', userId: user }],
    ]
    for (const [i, [path, body]] of calls.entries()) {
      const r = await send(path, { ...body, messageId: randomUUID(), timestamp: `2025-03-01T10:0${i}:00.000Z` })
      t.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`)
    }
    const batch = await send('/v1/import', {
      batch: [
        {
          type: 'track',
          userId: user,
          event: 'purchase_completed',
          messageId: randomUUID(),
          properties: { amount: 9 },
          timestamp: '2025-03-01T10:09:00.000Z',
        },
      ],
    })
    t.equal(batch.status, 200)
    t.equal(batch.body.data.processed_count, 1)

    const evs = await s.waitForRows<{
      event: string
      user_id: string
      anonymous_id: string
      properties: string
      context: string
    }>(
      `SELECT event, user_id, anonymous_id, properties, context FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND user_id IN ('${anon}', '${user}') ORDER BY event`,
      5,
    )
    t.same(
      evs.map((e) => [e.event, e.user_id, e.anonymous_id]),
      [
        ['$group', user, ''],
        ['page_viewed', anon, anon],
        ['purchase_completed', user, ''],
        ['screen_viewed', anon, anon],
        ['signup_completed', user, anon],
      ],
      'H49, H51, H52: names, user ids and anonymous ids',
    )
    const page = evs.find((e) => e.event === 'page_viewed')!
    t.same(
      JSON.parse(page.properties),
      { name: 'Home', category: 'Docs', url: 'https://example.com/', path: '/' },
      'H49: page name, category and url fields in properties',
    )
    t.match(
      JSON.parse(page.context),
      { device: { model: 'Pixel 8' }, os: { name: 'Android' }, library: { name: 'analytics-test' } },
      'device context kept as JSON',
    )

    const links = await s.waitForRows<{ id: string; person_id: string }>(
      `SELECT id, person_id FROM ${db}.identity_map WHERE account_id = '${accountId}' ORDER BY id`,
      2,
    )
    t.same(
      links,
      [
        { id: anon, person_id: user },
        { id: 'old-login-id', person_id: user },
      ],
      'H50: the anonymous id and the aliased id map to the person',
    )
    const persons = await s.query<{ n: string | number }>(
      `SELECT uniqExact(person_id) AS n FROM ${db}.events_by_person WHERE account_id = '${accountId}' AND (user_id = '${anon}' OR user_id = '${user}')`,
    )
    t.equal(Number(persons[0]!.n), 1, 'anonymous page view, signup and purchase count one person')
    // The funnel of schemas/clickhouse/README.md (query 10), on this account.
    const funnel = await s.query<
      Record<string, string | number>
    >(`SELECT countIf(level >= 1) AS viewed, countIf(level >= 2) AS signed_up, countIf(level >= 3) AS purchased
      FROM (SELECT person_id, windowFunnel(604800)(timestamp, event = 'page_viewed', event = 'signup_completed', event = 'purchase_completed') AS level
            FROM ${db}.events_by_person WHERE account_id = '${accountId}' AND event IN ('page_viewed', 'signup_completed', 'purchase_completed') GROUP BY person_id)`)
    t.same(
      Object.values(funnel[0]!).map(Number),
      [1, 1, 1],
      'the documented funnel: one person viewed, signed up and purchased',
    )
    const groups = await s.waitForRows<{ group_id: string; traits: string; members: string | number }>(
      `SELECT group_id, traits, members FROM ${db}.groups_view WHERE account_id = '${accountId}'`,
    )
    t.same(
      groups.map((g) => [g.group_id, JSON.parse(g.traits), Number(g.members)]),
      [['acme', { name: 'Acme', employees: 40 }, 1]],
      'H51: the group and its traits',
    )
    const ident = await s.waitForRows<{ email: string }>(
      `SELECT email FROM ${db}.users_view WHERE account_id = '${accountId}' AND user_id = '${user}' AND email != ''`,
    )
    t.equal(ident[0]!.email, 'seg@example.com', 'identify traits set the profile (H10)')
  })

  t.test('a retried messageId is stored once (H16)', async (t) => {
    const messageId = randomUUID()
    const body = { batch: [{ type: 'track', userId: 'retry-user', event: 'retried', messageId }] }
    const a = await send('/v1/batch', body)
    const b = await send('/v1/batch', body)
    t.equal(a.status, 200)
    t.equal(b.body.data.results[0].event_id, a.body.data.results[0].event_id, 'same event_id')
    await s.waitForRows(`SELECT 1 FROM ${db}.events WHERE account_id = '${accountId}' AND message_id = '${messageId}'`)
    const n = await s.query<{ n: string | number }>(
      `SELECT count() AS n FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND message_id = '${messageId}'`,
    )
    t.equal(Number(n[0]!.n), 1)
  })

  t.test('refusals: ids, types, sizes; a batch keeps its valid messages (H11, H53)', async (t) => {
    const noId = await send('/v1/track', { event: 'x' })
    t.equal(noId.status, 400)
    t.equal(noId.body.error.code, 'VALIDATION_ERROR')
    t.match(noId.body.error.message, /userId or anonymousId/)
    const badName = await send('/v1/track', { userId: 'u', event: '' })
    t.equal(badName.status, 400)
    t.match(badName.body.error.details.errors[0].path, '/event', 'our field rule, at the Segment path')
    const mixed = await send('/v1/batch', {
      batch: [
        { type: 'track', userId: 'u', event: 'ok' },
        { type: 'launch', userId: 'u' },
        { type: 'alias', userId: 'u' },
      ],
    })
    t.equal(mixed.status, 200)
    t.same(
      mixed.body.data.results.map((r: any) => r.success),
      [true, false, false],
    )
    const big = await send('/v1/track', { userId: 'u', event: 'big', properties: { blob: 'x'.repeat(33 * 1024) } })
    t.equal(big.status, 413, 'a call over 32 KiB')
    t.equal(big.body.error.details.limit_bytes, 32 * 1024)
    const bigBatch = await send('/v1/batch', {
      batch: Array.from({ length: 20 }, () => ({
        type: 'track',
        userId: 'u',
        event: 'b',
        properties: { blob: 'x'.repeat(30 * 1024) },
      })),
    })
    t.equal(bigBatch.status, 413, 'a batch over 500 KiB')
    t.equal(bigBatch.body.error.details.limit_bytes, 500 * 1024)
  })
})
