// Retries are billed once, and enforced as billed (H34): a Hobby account sends the same message 1000
// times (10 batches of 100 items with one message_id, as the SDK's re-send of in-flight batches does),
// then 1000 distinct events. The ingest's 429 point, usage_monthly and the dashboard's usage API must
// agree: 1 + 999 events, the 1000th distinct one refused. Without REDIS_URL (the in-memory quota) and
// with it (the shared counter), each on its own services and Redis key prefix.
import t, { type Test } from 'tap'
import { startDashboard } from '../support/dashboard-harness.js'
import { waitUntil } from '../support/harness.js'
import { redisUnderPrefix } from '../support/redis-env.js'
import { hashKey } from '../../services/shared/src/accounts/key-hash.js'

// Hobby as it is, but for the per-second limit, so 2000 items in a few seconds are never refused for it.
const PLANS = { hobby: { eventsPerSecond: 1_000_000 } }

const batch = (n: number, messageId?: string) => ({
  sent_at: new Date().toISOString(),
  events: Array.from({ length: n }, (_, i) => ({
    type: 'event',
    event: 'page_viewed',
    user: { id: `u${i}` },
    ...(messageId ? { message_id: messageId } : {}),
  })),
})

async function duplicateSends(t: Test, env: Record<string, string>) {
  const s = await startDashboard(t, { env: { PLANS_JSON: JSON.stringify(PLANS), ...env } })
  const c = s.client()
  const { accountId } = await c.signUp()
  const key = (await c.post('/api/keys', { name: 'server', type: 'live' })).body.data.secret as string
  await waitUntil(() => s.ingest!.deps.keys.lookup(hashKey(key)) !== undefined, 10_000, 'the key to reach ingest')

  const ids = new Set<string>()
  for (let i = 0; i < 10; i++) {
    const r = await s.post('/v1/events', batch(100, 'page-hide-resend'), { key })
    t.equal(r.status, 200, `duplicate send ${i + 1}`)
    t.equal(r.body.events_processed, 100)
    for (const x of r.body.data.results) ids.add(x.event_id)
  }
  t.equal(ids.size, 1, 'one event id for the 1000 items')

  let accepted = 0
  let last: any
  for (let i = 0; i < 10; i++) {
    last = await s.post('/v1/events', batch(100), { key })
    t.equal(last.status, 200, `distinct batch ${i + 1}`)
    accepted += last.body.events_processed
  }
  t.equal(accepted, 999, 'the month had 999 left after the duplicates: they counted once')
  t.match(last.body.data.results[99], {
    success: false,
    error: { code: 'MONTHLY_EVENT_LIMIT_EXCEEDED', details: { limit: 1000, used: 1000 } },
  })
  const over = await s.post('/v1/event', { event: 'one_more', user: { id: 'u' } }, { key })
  t.equal(over.status, 429)
  t.match(over.body.error, { code: 'MONTHLY_EVENT_LIMIT_EXCEEDED', details: { limit: 1000, used: 1000 } })

  const [billed] = await s.waitForRows<{ events: string }>(
    `SELECT uniqExactMerge(events_state) AS events FROM ${s.database}.usage_monthly_sharded WHERE account_id = '${accountId}' AND environment = 'live' HAVING events >= 1000`,
    1,
    30_000,
  )
  t.equal(Number(billed!.events), 1000, 'usage_monthly: 1000 events')
  await waitUntil(
    async () => (await c.get('/api/usage')).body.data.events_this_month.live >= 1000,
    15_000,
    'the dashboard to show the month',
  )
  t.match(
    (await c.get('/api/usage')).body.data.events_this_month,
    { live: 1000, limit: 1000 },
    'the dashboard: 1000 of 1000',
  )

  // Reconciliation from what is stored keeps the same point: still refused at 1000, never above.
  await waitUntil(
    async () => (await s.post('/v1/event', { event: 'again', user: { id: 'u' } }, { key })).status === 429,
    5_000,
    'a refusal after reconciliation',
  )
  t.equal(
    Number(
      (
        await s.query<{ e: string }>(
          `SELECT uniqExactMerge(events_state) AS e FROM ${s.database}.usage_monthly_sharded WHERE account_id = '${accountId}'`,
        )
      )[0]!.e,
    ),
    1000,
    'nothing more stored',
  )
}

t.test('duplicate sends, without Redis', (t) => duplicateSends(t, {}))

t.test('duplicate sends, with Redis', async (t) => {
  const { redis, prefix, env } = redisUnderPrefix(t)
  await duplicateSends(t, env)
  t.ok((await redis.keys(`${prefix}mo:*`)).length > 0, 'the counter was in Redis')
})
