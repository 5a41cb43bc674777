// H35: the projector's test-row retention deletes test-key events and identifies older than
// TEST_RETENTION_DAYS, and nothing else: live rows of any age, recent test rows and the usage counters
// stay. The job is run directly with its clock; the deletion is a ClickHouse mutation, which runs in the
// background, so the test waits for the rows to go.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { createLogger } from '../../services/shared/src/log.js'
import { TestRetention } from '../../services/projector/src/retention/test-retention.js'

const DAY = 86_400_000

t.test('test rows past the retention are deleted; live rows, recent test rows and usage stay', async (t) => {
  const s = await startServices(t)
  const live = await s.createKey({ type: 'live' })
  const test = await s.createKey({ type: 'test', account: live.accountId })
  const old = new Date(Date.now() - 40 * DAY).toISOString()
  const send = async (key: string, event: string, timestamp?: string) => {
    const r = await s.post('/v1/event', { event, user: { id: 'u1' }, ...(timestamp ? { timestamp } : {}) }, { key })
    t.equal(r.status, 200, event)
  }
  await send(test.key, 'old_test', old)
  await send(test.key, 'new_test')
  await send(live.key, 'old_live', old)
  const idf = await s.post(
    '/v1/events',
    {
      sent_at: new Date().toISOString(),
      events: [{ type: 'identify', user: { id: 'u2' }, traits: { a: 1 }, timestamp: old }],
    },
    { key: test.key },
  )
  t.equal(idf.status, 200)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events WHERE account_id = '${live.accountId}'`, 3)
  await s.waitForRows(`SELECT 1 FROM ${s.database}.identifies WHERE account_id = '${live.accountId}'`, 1)
  const usage = () =>
    s.query<{ environment: string; n: string }>(
      `SELECT environment, toString(uniqExactMerge(events_state)) AS n FROM ${s.database}.usage_monthly_sharded WHERE account_id = '${live.accountId}' GROUP BY environment ORDER BY environment`,
    )
  // The usage table is written after the events table (a materialized view, not atomic with it): wait for
  // all three events there before taking the figure the retention must keep.
  const counted = [
    { environment: 'live', n: '1' },
    { environment: 'test', n: '2' },
  ]
  await waitUntil(async () => JSON.stringify(await usage()) === JSON.stringify(counted), 15_000, 'usage counts all')
  const before = await usage()

  const retention = new TestRetention(s.ch, s.database, 30, createLogger('error'), () => Date.now())
  const runs = await retention.runOnce()
  t.same(
    runs.map((r) => [r.table, r.expired, r.issued]),
    [
      ['events', 1, true],
      ['identifies', 1, true],
    ],
  )

  await waitUntil(
    async () => (await s.query(`SELECT 1 FROM ${s.database}.events WHERE event = 'old_test'`)).length === 0,
    30_000,
    'the old test event to be deleted',
  )
  await waitUntil(
    async () =>
      (await s.query(`SELECT 1 FROM ${s.database}.identifies WHERE account_id = '${live.accountId}'`)).length === 0,
    30_000,
    'the old test identify to be deleted',
  )
  const left = await s.query<{ event: string; environment: string }>(
    `SELECT event, environment FROM ${s.database}.events FINAL WHERE account_id = '${live.accountId}' ORDER BY event`,
  )
  t.same(
    left,
    [
      { event: 'new_test', environment: 'test' },
      { event: 'old_live', environment: 'live' },
    ],
    'live rows of any age and recent test rows stay',
  )
  t.same(await usage(), before, 'the usage counters are kept')

  const again = await retention.runOnce()
  t.same(
    again.map((r) => [r.expired, r.issued]),
    [
      [0, false],
      [0, false],
    ],
    'nothing left: no mutation issued',
  )
})
