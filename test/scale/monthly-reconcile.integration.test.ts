// The monthly counter in Redis is reconciled from the projector's exact usage (docs/scaling.md): when Redis
// has lost it (restarted empty, flushed), the next reconciliation (USAGE_RECONCILE_MS, 300 ms in the harness)
// puts back the projection (H34: max(projected, min(counter, projected + in flight))), so the limit holds again without a restart of ingest.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { redisUnderPrefix } from '../support/redis-env.js'

const PLANS = { month8: { requestsPerMinute: 10_000, eventsPerSecond: 1000, eventsPerMonth: 8, emailsPerMonth: 0 } }

t.test('a lost monthly counter comes back from ClickHouse', async (t) => {
  const { redis, prefix, env } = redisUnderPrefix(t)
  const s = await startServices(t, { env: { PLANS_JSON: JSON.stringify(PLANS), ...env } })
  const k = await s.createKey({ plan: 'month8' })
  const batch = (n: number) => ({
    sent_at: new Date().toISOString(),
    events: Array.from({ length: n }, (_, i) => ({ type: 'event', event: 'e', user: { id: `u${i}` } })),
  })
  const monthKey = `${prefix}mo:{${k.accountId}}:${new Date().toISOString().slice(0, 7)}`

  t.equal((await s.post('/v1/events', batch(6), { key: k.key })).body.events_processed, 6)
  t.equal(await redis.get(monthKey), '6')
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events WHERE account_id = '${k.accountId}' HAVING count() >= 6`)

  await redis.del(monthKey) // Redis lost it
  await waitUntil(async () => (await redis.get(monthKey)) === '6', 20_000, 'the refresh to put the projected 6 back')
  const r = await s.post('/v1/events', batch(5), { key: k.key })
  t.equal(r.status, 200)
  t.same(
    r.body.data.results.map((x: any) => x.success),
    [true, true, false, false, false],
    '8 in all, not 6 + 5',
  )
  t.equal(await redis.get(monthKey), '8')
})
