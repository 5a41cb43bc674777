// H5, H6, H10, A6: identify and event traits merge into one profile, usage counts live
// events only, and a bulk historical import lands in the partitions of its event times.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'

const iso = (ms: number) => new Date(ms).toISOString()

t.test('projection into ClickHouse', async (t) => {
  const s = await startServices(t)
  const db = s.database

  t.test('identify traits and event user.traits merge into the profile (H10)', async (t) => {
    const { key, accountId } = await s.createKey({ type: 'live' })
    const now = Date.now()
    const sent_at = iso(now)
    const res = await s.post(
      '/v1/events',
      {
        sent_at,
        events: [
          // Oldest: both trait places, the top level wins for `plan`.
          {
            type: 'identify',
            user: { id: 'ann', traits: { plan: 'free', name: 'Ann' } },
            traits: { plan: 'pro', email: 'ann@old.example' },
            timestamp: iso(now - 30_000),
          },
          // An event's user.traits and user.email update the profile.
          {
            type: 'event',
            event: 'order_completed',
            user: { id: 'ann', email: 'ann@example.com', traits: { company: 'Acme' } },
            properties: { total: 12 },
            timestamp: iso(now - 20_000),
          },
          // A partial identify changes only the keys it names.
          { type: 'identify', user: { id: 'ann' }, traits: { name: 'Ann B' }, timestamp: iso(now - 10_000) },
        ],
      },
      { key },
    )
    t.equal(res.status, 200)
    t.equal(res.body.data.results.filter((r: any) => r.success).length, 3)

    const traits = await s.waitForRows<{ trait_key: string; value: string }>(
      `SELECT trait_key, value FROM ${db}.user_traits_latest WHERE account_id = '${accountId}' AND user_id = 'ann' AND NOT (trait_key = 'name' AND value != '"Ann B"') ORDER BY trait_key`,
      4,
    )
    t.same(Object.fromEntries(traits.map((r) => [r.trait_key, JSON.parse(r.value)])), {
      company: 'Acme',
      email: 'ann@old.example',
      name: 'Ann B',
      plan: 'pro',
    })

    // The profile's rows come from two views, one of the identifies inserts and one of the events insert, which
    // land apart (two topics): wait for the event's own `users` row (its state alone names its email) too.
    await s.waitForRows(
      `SELECT 1 FROM ${db}.users WHERE account_id = '${accountId}' AND user_id = 'ann' AND finalizeAggregation(email_state) = 'ann@example.com'`,
    )
    const [user] = await s.waitForRows<{
      email: string
      first_seen_ms: string
      last_seen_ms: string
      environment: string
    }>(
      `SELECT email, first_seen_ms, last_seen_ms, environment FROM ${db}.users_view WHERE account_id = '${accountId}' AND user_id = 'ann' AND last_seen_ms >= ${now - 10_500}`,
    )
    t.equal(user!.email, 'ann@example.com', 'the latest non-empty email by event time')
    t.equal(user!.environment, 'live')
    t.ok(Math.abs(Number(user!.first_seen_ms) - (now - 30_000)) < 2000, 'first seen at the first identify')
    t.ok(Number(user!.last_seen_ms) > Number(user!.first_seen_ms))

    const [ev] = await s.waitForRows<{ user_email: string; user_traits: string; total: number }>(
      `SELECT user_email, user_traits, visitParamExtractFloat(properties, 'total') AS total FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND event = 'order_completed'`,
    )
    t.same(ev, { user_email: 'ann@example.com', user_traits: '{"company":"Acme"}', total: 12 })
  })

  t.test('usage counts live-key events only (H5, H6)', async (t) => {
    const live = await s.createKey({ type: 'live' })
    const test = await s.createKey({ type: 'test', account: live.accountId })
    const ev = (i: number) => ({ type: 'event', event: 'clicked', user: { id: `u${i}` } })
    t.equal(
      (await s.post('/v1/events', { sent_at: iso(Date.now()), events: [ev(1), ev(2), ev(3)] }, { key: live.key }))
        .status,
      200,
    )
    t.equal(
      (await s.post('/v1/events', { sent_at: iso(Date.now()), events: [ev(4), ev(5)] }, { key: test.key })).status,
      200,
    )
    // An identify is not an event: it does not count.
    t.equal(
      (
        await s.post(
          '/v1/events',
          { sent_at: iso(Date.now()), events: [{ type: 'identify', user: { id: 'u1' }, traits: { a: 1 } }] },
          { key: live.key },
        )
      ).status,
      200,
    )
    await s.waitForRows(`SELECT event_id FROM ${db}.events FINAL WHERE account_id = '${live.accountId}'`, 5)
    await s.waitForRows(`SELECT event_id FROM ${db}.identifies FINAL WHERE account_id = '${live.accountId}'`, 1)
    let rows: Array<{ environment: string; events: string; month: string }> = []
    await waitUntil(
      async () => {
        rows = await s.query(
          `SELECT environment, events, toString(month) AS month FROM ${db}.usage_monthly_view WHERE account_id = '${live.accountId}' ORDER BY environment`,
        )
        return rows.length === 2 && Number(rows[0]!.events) === 3 && Number(rows[1]!.events) === 2
      },
      15_000,
      'usage rows for both environments',
    )
    const thisMonth = iso(Date.now()).slice(0, 7) + '-01'
    t.same(
      rows,
      [
        { environment: 'live', events: '3', month: thisMonth },
        { environment: 'test', events: '2', month: thisMonth },
      ],
      'live events are counted apart from test events; limits read the live row',
    )
  })

  t.test('a bulk historical import lands in the partitions of its event times', async (t) => {
    const { key, accountId } = await s.createKey({ type: 'live', plan: 'unlimited' })
    const events = Array.from({ length: 100 }, (_, i) => ({
      type: 'event',
      event: 'imported',
      user: { id: `old${i % 7}` },
      message_id: `import-${i}`,
      timestamp:
        i < 60
          ? `2025-03-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`
          : `2024-11-15T08:30:${String(i % 60).padStart(2, '0')}.250Z`,
    }))
    // An importer sets sent_at to the upload time: timestamps are kept as given (no skew to correct).
    const res = await s.post('/v1/events', { sent_at: iso(Date.now()), events }, { key })
    t.equal(res.status, 200)
    t.equal(res.body.data.results.filter((r: any) => r.success).length, 100)
    await s.waitForRows(`SELECT event_id FROM ${db}.events FINAL WHERE account_id = '${accountId}'`, 100)
    const perMonth = await s.query<{ p: string; n: string }>(
      `SELECT toString(toYYYYMM(timestamp)) AS p, count() AS n FROM ${db}.events FINAL WHERE account_id = '${accountId}' GROUP BY p ORDER BY p`,
    )
    t.same(perMonth, [
      { p: '202411', n: '40' },
      { p: '202503', n: '60' },
    ])
    const parts = await s.query<{ partition: string }>(
      `SELECT DISTINCT partition FROM system.parts WHERE database = '${db}' AND table = 'events' AND active ORDER BY partition`,
    )
    t.ok(
      parts.some((p) => p.partition === '202503'),
      'a part in partition 202503',
    )
    t.ok(
      parts.some((p) => p.partition === '202411'),
      'a part in partition 202411',
    )
    const [ms] = await s.query<{ timestamp_ms: string; original_timestamp_ms: string }>(
      `SELECT timestamp_ms, original_timestamp_ms FROM ${db}.events FINAL WHERE account_id = '${accountId}' AND message_id = 'import-60'`,
    )
    t.equal(
      Number(ms!.original_timestamp_ms),
      Date.parse('2024-11-15T08:30:00.250Z'),
      'the client timestamp, to the millisecond',
    )
    // H13 shifts the time by the upload's transit time (received_at - sent_at): milliseconds here.
    t.ok(
      Math.abs(Number(ms!.timestamp_ms) - Date.parse('2024-11-15T08:30:00.250Z')) < 5000,
      'the corrected time stays in place',
    )
    // The usage table is filled by a materialized view, its parts committed after the events parts: wait for
    // all 100 there (a row appears with the first insert of the batch).
    const [usage] = await s.waitForRows<{ month: string; events: string }>(
      `SELECT toString(month) AS month, events FROM ${db}.usage_monthly_view WHERE account_id = '${accountId}' AND environment = 'live' AND events >= 100`,
    )
    t.same(
      usage,
      { month: iso(Date.now()).slice(0, 7) + '-01', events: '100' },
      'usage counts the import in the month it arrived (H5)',
    )
  })
})
