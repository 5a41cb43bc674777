// GET /api/trends over the real stack: events sent through the ingest, counted per hour with a
// breakdown, the previous period, CSV, refused parameters and a request without a session.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'

t.test('trends of the signed-in account', async (t) => {
  const s = await startDashboard(t)
  const c = s.client()
  await c.signUp()
  const key = (await c.post('/api/keys', { name: 'live', type: 'live' })).body.data
  const send = (plan: string) =>
    s.post('/v1/event', { event: 'signup', user: { id: `u_${plan}` }, properties: { plan } }, { key: key.secret })
  await waitUntil(async () => (await send('pro')).status === 200, 10_000, 'the key to work')
  t.equal((await send('pro')).status, 200)
  t.equal((await send('free')).status, 200)

  const total = (b: any) =>
    (b.data?.series ?? []).flatMap((x: any) => x.counts).reduce((a: number, n: number) => a + n, 0)
  await waitUntil(
    async () => total((await c.get('/api/trends?period=24h&interval=hour&event=signup')).body) === 3,
    15_000,
    'the three events in the trend',
  )
  const r = await c.get('/api/trends?period=24h&interval=hour&event=signup&breakdown=plan&compare=1')
  t.equal(r.status, 200)
  t.equal(r.body.data.buckets.length, 25, 'every hour of the last 24 hours, the first one partly')
  t.same(
    r.body.data.series.map((x: any) => [x.value, x.counts.reduce((a: number, n: number) => a + n, 0)]),
    [
      ['pro', 2],
      ['free', 1],
    ],
  )
  t.same(r.body.data.previous.series, [], 'nothing the day before')

  const csv = await c.get('/api/trends?period=24h&interval=day&event=signup&filter=plan%3Dpro&format=csv')
  t.equal(csv.status, 200)
  t.match(csv.headers.get('content-type'), /^text\/csv/)
  const lines = String(csv.body).trim().split('\r\n')
  t.equal(lines[0], 'bucket,events')
  t.equal(
    lines.slice(1).reduce((a, l) => a + Number(l.split(',')[1]), 0),
    2,
    'the filter keeps the pro signups',
  )

  const bad = await c.get('/api/trends?interval=minute')
  t.equal(bad.status, 400)
  t.equal(bad.body.error.code, 'VALIDATION_ERROR')
  t.equal((await s.client().get('/api/trends')).status, 401)
})
