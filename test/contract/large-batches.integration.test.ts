// A valid batch is stored whatever its size within the limits (A4, H9, H26: no 200 for something then
// dropped, and no valid input refused forever). 40 items of ~30 KB about one user are one record
// batch of ~1.2 MB in one partition: above the broker's default 1 MB message limit, which refused
// it with 503 on every retry, and took down every small request grouped into the same flush.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startServices } from '../support/harness.js'

t.test('a 1.2 MB batch about one user, and small requests flushed beside it, are stored', async (t) => {
  const s = await startServices(t)
  const { key } = await s.createKey({ type: 'live', plan: 'orbit' })
  const fat = 'x'.repeat(30_000)
  const big = {
    sent_at: new Date().toISOString(),
    events: Array.from({ length: 40 }, (_, i) => ({
      type: 'event',
      event: 'fat',
      user: { id: 'one_user' },
      message_id: randomUUID(),
      properties: { i, blob: fat },
    })),
  }
  const smalls = Array.from({ length: 20 }, (_, i) =>
    s.post('/v1/event', { event: 'small', user: { id: `u${i}` }, message_id: randomUUID() }, { key }),
  )
  const [bigRes, ...smallRes] = await Promise.all([s.post('/v1/events', big, { key }), ...smalls])
  t.equal(
    bigRes.status,
    200,
    `the large batch is accepted${bigRes.status !== 200 ? `: ${JSON.stringify(bigRes.body).slice(0, 300)}` : ''}`,
  )
  t.same(
    smallRes.map((r) => r.status),
    smallRes.map(() => 200),
    'small requests grouped with it are accepted',
  )
  const rows = await s.waitForRows<{ n: string }>(
    `SELECT count() AS n FROM ${s.database}.events FINAL WHERE event = 'fat' HAVING n = 40`,
    1,
    60_000,
  )
  t.equal(Number(rows[0].n), 40, 'every item of the large batch reached ClickHouse')
  await s.waitForRows(
    `SELECT count() AS n FROM ${s.database}.events FINAL WHERE event = 'small' HAVING n = 20`,
    1,
    30_000,
  )
})
