// SharedLimits in the ingest pipeline against a real redis-server (the stack's; REDIS_URL overrides):
// the monthly reservation given back in Redis when Kafka refuses the records, test keys never touching
// the month, reconciliation feeding both Redis and the local quota, and a Redis that cannot be reached
// answered by the local limiters. The appender is the pipeline's one-method interface, as in
// accept-items.test.ts.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { DEFAULT_PLANS, type Plan } from '../../../shared/src/accounts/plans.js'
import type { KeyLookup } from '../../../shared/src/accounts/key-table.js'
import { validateBatch, type Item } from '../validation/index.js'
import { EventIds, type RequestContext } from '../records/index.js'
import { acceptItems, type PipelineDeps } from '../pipeline/accept-items.js'
import {
  EventRateLimiter,
  LimiterFallback,
  MonthlyQuota,
  RedisLimits,
  RequestLimiter,
  SharedLimits,
  MemoryLimiterStore,
} from './index.js'

const URL = process.env.REDIS_URL || 'redis://127.0.0.1:16379'
// a little in the future, so keys (expiring with their window) outlive the test's calls
const NOW = Date.now() - (Date.now() % 1000) + 20_000
const MONTH = new Date(NOW).toISOString().slice(0, 7)

function lookup(type: 'live' | 'test', plan: Plan): KeyLookup {
  return {
    key: {
      key_id: 'k1',
      account_id: 'acme',
      key_hash: 'h',
      masked: 'svc_live_…',
      name: 'n',
      type,
      status: 'active',
      created_at: 0,
      updated_at: 0,
    },
    account: {
      account_id: 'acme',
      name: 'Acme',
      plan: plan.name,
      status: 'active',
      owner_email: null,
      password_hash: null,
      created_at: 0,
      updated_at: 0,
    },
    plan,
  }
}

function items(n: number, messageId?: string): Array<{ index: number; item: Item }> {
  const v = validateBatch(
    {
      sent_at: new Date(NOW).toISOString(),
      events: Array.from({ length: n }, (_, i) => ({
        type: 'event',
        event: 'e',
        user: { id: `u${i}` },
        message_id: messageId,
      })),
    },
    NOW,
  )
  if (!v.ok) throw new Error('fixture is invalid')
  return v.items.map((it) => ({ index: it.index, item: (it as { item: Item }).item }))
}

const rc = (environment: 'live' | 'test'): RequestContext => ({
  accountId: 'acme',
  environment,
  keyId: 'k1',
  receivedAt: NOW,
  sentAt: NOW,
  ip: '127.0.0.1',
  userAgent: null,
})

function setup(t: Test, url = URL, append: () => Promise<void> = async () => {}) {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 100,
  })
  redis.on('error', () => undefined)
  const prefix = `test:${randomBytes(5).toString('hex')}:`
  t.teardown(async () => {
    if (redis.status === 'ready') {
      const keys = await redis.keys(`${prefix}*`) // month counters would otherwise stay for weeks
      if (keys.length) await redis.del(...keys)
    }
    redis.disconnect()
  })
  const local = {
    requests: new RequestLimiter(new MemoryLimiterStore()),
    events: new EventRateLimiter(),
    quota: new MonthlyQuota(),
  }
  let fallbacks = 0
  const shared = new SharedLimits({
    redis: new RedisLimits(redis, prefix),
    fallback: new LimiterFallback(60_000),
    local,
    onFallback: () => fallbacks++,
  })
  const d: PipelineDeps = {
    limits: shared,
    codec: { encode: (name, value) => Buffer.from(JSON.stringify({ name, value })) },
    appender: { append },
    eventIds: new EventIds(),
    topics: { events: 'ev', identifies: 'id' },
  }
  return { redis, prefix, local, shared, d, fallbacks: () => fallbacks, monthKey: `${prefix}mo:{acme}:${MONTH}` }
}

t.test('Kafka refuses the records: 503, and the reservation is given back in Redis', async (t) => {
  let fail = true
  const s = setup(t, URL, async () => {
    if (fail) throw new Error('broker down')
  })
  await s.redis.connect()
  const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 10 }
  const err = await acceptItems(s.d, lookup('live', plan), items(4), rc('live')).catch((e) => e)
  t.equal(err.status, 503)
  // the release is not awaited by the request; it is one script on the same connection, so it has
  // run before any later command on that connection
  t.equal(await s.redis.get(s.monthKey), '0', 'given back')
  fail = false
  const ok = await acceptItems(s.d, lookup('live', plan), items(4), rc('live'))
  t.equal(ok.results.filter((r) => r.success).length, 4)
  t.equal(await s.redis.get(s.monthKey), '4')
  const test = await acceptItems(s.d, lookup('test', plan), items(20), rc('test'))
  t.equal(test.results.filter((r) => r.success).length, 20, 'test-key events pass (H6)')
  t.equal(await s.redis.get(s.monthKey), '4', 'and never touch the month')
  t.equal(s.local.quota.used('acme', NOW), 0, 'nothing was counted locally')
  t.equal(s.fallbacks(), 0)
})

t.test('reconcile: the projection raises the shared counter and feeds the local quota', async (t) => {
  const s = setup(t)
  await s.redis.connect()
  await s.shared.reconcile(MONTH, { live: new Map([['acme', 8]]), test: new Map() }, NOW)
  t.equal(await s.redis.get(s.monthKey), '8')
  t.equal(s.local.quota.used('acme', NOW), 8, 'what the local limiter would use while Redis is away')
  const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 10 }
  const a = await acceptItems(s.d, lookup('live', plan), items(3), rc('live'))
  t.same(
    a.results.map((r) => r.success),
    [true, true, false],
  )
  t.same(a.quotaError?.details, {
    limit: 10,
    used: 10,
    resets_at: new Date(Date.UTC(new Date(NOW).getUTCFullYear(), new Date(NOW).getUTCMonth() + 1, 1)).toISOString(),
  })
})

t.test('Redis unreachable: the local limiters answer, every call counted as a fallback', async (t) => {
  const s = setup(t, 'redis://127.0.0.1:1') // nothing listens on port 1
  const plan = { ...DEFAULT_PLANS.hobby!, requestsPerMinute: 2, eventsPerMonth: 3 }
  const r = [
    await s.shared.checkRequest('a:acme', 2, NOW),
    await s.shared.checkRequest('a:acme', 2, NOW),
    await s.shared.checkRequest('a:acme', 2, NOW),
  ]
  t.same(
    r.map((x) => x.allowed),
    [true, true, false],
  )
  t.equal(s.shared.mode, 'local')
  t.match(s.shared.describe(), /Redis not answering/)
  const a = await acceptItems(s.d, lookup('live', plan), items(5), rc('live'))
  t.same(
    a.results.map((x) => x.success),
    [true, true, true, false, false],
    'the local monthly quota',
  )
  t.equal(s.fallbacks(), 4)
})

t.test('Redis away and Kafka refuses: the reservation made locally is given back locally (H79 heldBy)', async (t) => {
  const s = setup(t, 'redis://127.0.0.1:1', async () => {
    throw new Error('broker down')
  }) // nothing listens on port 1
  const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 10 }
  const err = await acceptItems(s.d, lookup('live', plan), items(4), rc('live')).catch((e) => e)
  t.equal(err.status, 503)
  t.equal(s.local.quota.used('acme', NOW), 0, 'given back to the quota that counted it')
  t.equal(s.fallbacks(), 1, 'the admission was answered locally')
})

t.test(
  'in Redis: a retried message id is counted once (H34); test events stop at their own cap with their own code (H33)',
  async (t) => {
    const s = setup(t)
    await s.redis.connect()
    const plan = { ...DEFAULT_PLANS.hobby!, eventsPerMonth: 3, testEventsPerMonth: 2 }
    for (let i = 0; i < 5; i++) {
      const a = await acceptItems(s.d, lookup('live', plan), items(100, 'same'), rc('live'))
      t.equal(
        a.results.filter((r) => r.success).length,
        100,
        `send ${i + 1} of the same message: all 100 items stored once`,
      )
    }
    t.equal(await s.redis.get(s.monthKey), '1', 'one event counted')
    const b = await acceptItems(s.d, lookup('live', plan), items(3), rc('live'))
    t.same(
      b.results.map((r) => r.success),
      [true, true, false],
      'the month has 2 left, not 0',
    )
    const test = await acceptItems(s.d, lookup('test', plan), items(3), rc('test'))
    t.same(
      test.results.map((r) => r.success),
      [true, true, false],
    )
    t.equal(test.results[2]!.error?.code, 'MONTHLY_TEST_EVENT_LIMIT_EXCEEDED')
    t.equal(test.quotaError?.headers['Retry-After'] !== undefined, true)
    t.equal(await s.redis.get(`${s.prefix}mo:{acme}:test:${MONTH}`), '2')
    t.equal(s.fallbacks(), 0)
  },
)
