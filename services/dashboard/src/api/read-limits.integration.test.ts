// Dashboard reads (H23): as the read-only ClickHouse user of deploy/local/clickhouse/users.xml,
// which can write nothing and whose queries are bounded in rows read, time and memory; and reads of
// event data limited per session (and per account, 3x) per minute, 429 with Retry-After beyond.
// Needs a ClickHouse configured from deploy/local/clickhouse (npm run stack:up puts users.xml in place).
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'

t.test('dashboard reads', async (t) => {
  const s = await startDashboard(t, { env: { CLICKHOUSE_READ_USER: 'dashboard_read', QUERIES_PER_MINUTE: '4' } })
  const ch = s.dashboard.deps.ch
  const rows = async (query: string) =>
    (await ch.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>()

  t.test('the dashboard reads as a user that cannot write and whose queries are bounded', async (t) => {
    await t.rejects(
      ch.command({ query: `INSERT INTO ${s.database}.events (event_id) VALUES ('x')` }),
      /readonly/i,
      'no INSERT',
    )
    await t.rejects(ch.command({ query: `DROP TABLE ${s.database}.events` }), /readonly/i, 'no DROP')
    await t.rejects(
      rows('SELECT count() FROM (SELECT number FROM system.numbers LIMIT 300000000)'),
      /Code: 158|rows to read|'max_rows_to_read' setting/i,
      'a query reading past max_rows_to_read is stopped',
    )
    const limits = Object.fromEntries(
      (
        await rows(
          "SELECT name, value FROM system.settings WHERE name IN ('max_execution_time', 'max_memory_usage', 'max_rows_to_read')",
        )
      ).map((r) => [r.name, Number(r.value)]),
    )
    t.ok(
      limits.max_execution_time > 0 && limits.max_memory_usage > 0 && limits.max_rows_to_read > 0,
      `bounded: ${JSON.stringify(limits)}`,
    )
  })

  t.test('reads work, and are limited per session and per account', async (t) => {
    const c = s.client()
    const { email, password } = await c.signUp()
    const key = (await c.post('/api/keys', { name: 'k', type: 'live' })).body.data.secret
    await waitUntil(
      async () => (await s.post('/v1/event', { event: 'seen', user: { id: 'u' } }, { key })).status === 200,
      10_000,
      'the key to reach ingest',
    )
    // The keys list above counted one read.
    let events: any[] = []
    await waitUntil(
      async () => {
        const r = await c.get('/api/events?event=seen')
        events = r.body.data
        return r.status === 200 && events.length === 1
      },
      20_000,
      'the event through the read-only user',
    )
    // Polling above may have used several reads; use the budget up, then one more.
    let r = await c.get('/api/usage')
    while (r.status === 200) r = await c.get('/api/top-events')
    t.equal(r.status, 429, 'past QUERIES_PER_MINUTE in the session')
    t.equal(r.body.error.code, 'RATE_LIMIT_EXCEEDED')
    t.ok(Number(r.headers.get('retry-after')) > 0, 'with Retry-After')
    t.equal((await c.get('/api/users/u')).status, 429, 'every query route counts')
    t.equal((await c.get('/api/me')).status, 200, 'pages that read no event data are not limited')

    // Other sessions of the account have their own budget, up to 3x per account.
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      const o = s.client()
      t.equal((await o.post('/api/signin', { email, password })).status, 200)
      for (let j = 0; j < 4; j++) statuses.push((await o.get('/api/top-events')).status)
    }
    t.same(
      statuses,
      [200, 200, 200, 200, 200, 200, 200, 200, 429, 429, 429, 429],
      "the account stops at three sessions' worth",
    )
  })
})
