// GET /api/refused over the real stack (H57, H65, U16): requests refused with a valid key travel from
// ingest over the refusals topic to ClickHouse and back to the key's account only, without the key.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'

const BAD = 8

t.test("refused requests reach their account's /api/refused, never another's, and never with the key", async (t) => {
  // A short drain so the test waits for the projector, not for ingest's 5 s timer.
  const s = await startDashboard(t, { env: { REFUSALS_FLUSH_MS: '200' } })
  const a = s.client()
  await a.signUp()
  const keyA = (await a.post('/api/keys', { name: 'live', type: 'live' })).body.data
  const b = s.client()
  await b.signUp()
  t.equal((await b.post('/api/keys', { name: 'live', type: 'live' })).status, 201, 'B has a key of its own')
  await waitUntil(
    async () => (await s.post('/v1/event', { event: 'ok', user: { id: 'u1' } }, { key: keyA.secret })).status === 200,
    10_000,
    'the key to work',
  )

  // A flood of bad requests with A's key: the key appears in the body twice, as a key-named field and as a value.
  const bad = { event: 42, writeKey: keyA.secret, user: { id: 'u1' }, properties: { note: keyA.secret } }
  // Eight: below the refused-request guard (H32), whose 429 comes before the key is known and is not recorded.
  for (let i = 0; i < BAD; i++) {
    const r = await s.post('/v1/event', bad, { key: keyA.secret })
    t.equal(r.status, 400, 'refused')
    if (r.status !== 400) break
  }

  const total = (body: any) => (body.data?.totals ?? []).reduce((n: number, x: any) => n + x.count, 0)
  await waitUntil(
    async () => {
      const r = (await a.get('/api/refused?period=24h&interval=minute')).body
      return total(r) >= BAD && r.data.samples.length > 0
    },
    20_000,
    "the refusals in A's /api/refused",
  )
  const r = await a.get('/api/refused?period=24h&interval=minute')
  const metrics = await (await fetch(`${s.projectorUrl}/metrics`)).text()
  t.match(
    metrics,
    /projector_refusal_records_total\{outcome="projected"\} [1-9]/,
    'operators see the records projected',
  )
  t.equal(r.status, 200)
  t.same(r.body.data.totals, [{ code: 'VALIDATION_ERROR', count: BAD }], 'counted exactly once each')
  t.ok(r.body.data.counts.every((c: any) => c.code === 'VALIDATION_ERROR' && /:00\.000Z$/.test(c.time)))
  const sample = r.body.data.samples[0]
  t.equal(sample.code, 'VALIDATION_ERROR')
  t.equal(sample.endpoint, '/v1/event')
  t.equal(sample.environment, 'live')
  t.ok(sample.message.length > 0, 'the message says why')
  t.match(sample.body, /"event":42/)
  t.ok(r.body.data.samples.length <= 20)
  t.equal((await a.get('/api/refused?period=7d')).body.data.totals[0].count, BAD, 'per hour over 7 days')

  // Every stored sample row, read straight from ClickHouse: no secret in any column.
  const rows = await (
    await s.ch.query({ query: `SELECT * FROM ${s.database}.refused_samples`, format: 'JSONEachRow' })
  ).json<Record<string, unknown>>()
  t.ok(rows.length > 0)
  for (const row of rows) t.notOk(JSON.stringify(row).includes(keyA.secret), 'no key in a stored sample')
  t.notOk(JSON.stringify(r.body).includes(keyA.secret), 'no key in the answer')

  const other = await b.get('/api/refused?period=7d')
  t.equal(other.status, 200)
  t.same(other.body.data.counts, [], "A's flood is not in B's counts")
  t.same(other.body.data.samples, [], "nor in B's samples")

  t.equal((await a.get('/api/refused?period=7d&interval=minute')).status, 400, 'no minute buckets over a week')
  t.equal((await a.get('/api/refused?period=1y')).body.error.code, 'VALIDATION_ERROR')
  t.equal((await s.client().get('/api/refused')).status, 401)
})
