// GET /api/funnels and GET /api/retention-cohorts over the real stack (U15, U18 of docs/design.md):
// events sent through the ingest answered as JSON, refused parameters (400 VALIDATION_ERROR naming the
// field) and a request without a session (401).
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'

t.test('funnels and retention cohorts of the signed-in account', async (t) => {
  const s = await startDashboard(t)
  const c = s.client()
  const { accountId } = await c.signUp()
  const key = (await c.post('/api/keys', { name: 'live', type: 'live' })).body.data
  const send = (event: string, user: string) => s.post('/v1/event', { event, user: { id: user } }, { key: key.secret })
  await waitUntil(async () => (await send('view', 'u1')).status === 200, 10_000, 'the key to work')
  t.equal((await send('signup', 'u1')).status, 200)
  t.equal((await send('view', 'u2')).status, 200)

  const funnel = '/api/funnels?step1=view&step2=signup&window=1h&period=24h'
  const persons = (b: any) => (b.data?.steps ?? []).map((x: any) => x.persons)
  await waitUntil(
    async () => JSON.stringify(persons((await c.get(funnel)).body)) === '[2,1]',
    15_000,
    'both persons in the funnel',
  )
  const f = await c.get(funnel)
  t.equal(f.status, 200)
  t.same(
    f.body.data.steps.map((x: any) => [x.event, x.persons, x.conversion, x.dropoff]),
    [
      ['view', 2, 1, 0],
      ['signup', 1, 0.5, 1],
    ],
  )
  t.equal(f.body.data.window_ms, 3_600_000)

  // Retention reads person_weeks, which a materialized view fills from the events inserts: ClickHouse commits
  // its parts after the events parts the funnel read, so wait for both persons' weeks (event '': any event).
  await s.waitForRows(
    `SELECT DISTINCT user_id FROM ${s.database}.person_weeks WHERE account_id = '${accountId}' AND event = ''`,
    2,
  )
  const r = await c.get('/api/retention-cohorts?weeks=2&period=4w')
  t.equal(r.status, 200)
  t.equal(r.body.data.weeks, 2)
  t.same(
    r.body.data.cohorts.map((x: any) => [x.persons, x.returned]),
    [[2, [null, null]]],
    "this week's cohort, its weeks after not begun",
  )

  for (const [path, field] of [
    ['/api/funnels?step1=view', 'step1'],
    ['/api/funnels?step1=view&step2=signup&window=2d', 'window'],
    ['/api/retention-cohorts?weeks=13', 'weeks'],
  ]) {
    const bad = await c.get(path!)
    t.equal(bad.status, 400, path)
    t.equal(bad.body.error.code, 'VALIDATION_ERROR')
    t.match(JSON.stringify(bad.body.error), field!)
  }
  t.equal((await s.client().get(funnel)).status, 401)
  t.equal((await s.client().get('/api/retention-cohorts')).status, 401)
})
