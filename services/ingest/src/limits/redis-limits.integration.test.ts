// The limiter scripts against a real redis-server (the local stack's, `stack.sh up --with-redis`;
// REDIS_URL overrides). Every test uses its own key prefix, so tests and runs can share one Redis.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { RedisLimits, MONTH_KEY_MARGIN_MS } from './redis-limits.js'
import { MemoryLimiterStore } from './limiter-store.js'
import { RequestLimiter } from './request-limiter.js'
import { requestResult } from './windows.js'

const URL = process.env.REDIS_URL || 'redis://127.0.0.1:16379'
const MIN = 60_000
const T0 = Date.now() - (Date.now() % MIN) // a minute boundary now, so keys expire soon after the test

async function open(t: Test) {
  const redis = new Redis(URL, { enableOfflineQueue: true, maxRetriesPerRequest: 1 })
  const prefix = `test:${randomBytes(5).toString('hex')}:`
  t.teardown(async () => {
    const keys = await redis.keys(`${prefix}*`) // month counters would otherwise stay for weeks
    if (keys.length) await redis.del(...keys)
    redis.disconnect()
  })
  return { redis, prefix, limits: new RedisLimits(redis, prefix) }
}

t.test('per-minute take: same counts as the in-memory limiter, refusals consume nothing, key expires with its window', async (t) => {
  const { redis, prefix, limits } = await open(t)
  const mem = new RequestLimiter(new MemoryLimiterStore())
  for (let i = 0; i < 6; i++) {
    const now = T0 + 1000 + i
    const before = await limits.takeRequest('a:acc', 4, now, MIN)
    t.same(requestResult(before, 4, now, MIN), mem.check('a:acc', 4, now), `call ${i + 1}`)
  }
  const key = `${prefix}rl:a:acc:${T0}`
  t.equal(await redis.get(key), '4', 'never past the limit')
  t.equal(Number(await redis.pexpiretime(key)), T0 + MIN, 'expires at the end of its window')
  t.equal(await limits.peekRequest('a:acc', T0 + 5, MIN), 4)
  t.equal(await limits.peekRequest('a:acc', T0 + MIN, MIN), 0, 'the next window starts empty')
  t.equal(await limits.takeRequest('a:acc', 4, T0 + MIN, MIN), 0)
  t.equal(await limits.takeRequest('ip:127.0.0.1', 4, T0, MIN), 0, 'buckets are separate')
})

t.test('events: per-second all-or-nothing, then the monthly reservation, in one call', async (t) => {
  const { redis, prefix, limits } = await open(t)
  // a second in the near future, so its keys (expiring at its end) outlive the test's calls
  const now = Date.now() - (Date.now() % 1000) + 30_000 + 250
  t.same(await limits.admitEvents('acc', 6, 10, 6, 8, now, 1000), { secondBefore: 0, monthBefore: 0, granted: 6 })
  t.same(await limits.admitEvents('acc', 5, 10, 5, 8, now + 1, 1000), { secondBefore: 6, monthBefore: -1, granted: 0 }, 'refused by the second: nothing taken')
  t.same(await limits.admitEvents('acc', 4, 10, 4, 8, now + 2, 1000), { secondBefore: 6, monthBefore: 6, granted: 2 }, 'the month grants what is left')
  t.same(await limits.admitEvents('acc', 2, 20, 0, 8, now + 1000, 1000), { secondBefore: 0, monthBefore: 0, granted: 0 }, 'no countable events: the month is not read or touched')
  const month = new Date(now).toISOString().slice(0, 7)
  const mk = `${prefix}mo:{acc}:${month}`
  t.equal(await redis.get(mk), '8')
  const d = new Date(now)
  t.equal(Number(await redis.pexpiretime(mk)), Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) + MONTH_KEY_MARGIN_MS)
  t.equal(Number(await redis.pexpiretime(`${prefix}ev:{acc}:${now - (now % 1000)}`)), now - (now % 1000) + 1000)

  t.equal(await limits.releaseMonth('acc', 3, now), 5)
  t.equal(await limits.releaseMonth('acc', 100, now), 0, 'never below zero')
  t.equal(await limits.releaseMonth('other', 3, now), 0)
  t.equal(await redis.exists(`${prefix}mo:{other}:${month}`), 0, 'releasing a missing (expired) counter creates nothing')
})

t.test('reconcile: counter = max(counter, projected), in chunks', async (t) => {
  const { redis, prefix, limits } = await open(t)
  const now = Date.now() + 30_000
  const month = new Date(now).toISOString().slice(0, 7)
  await limits.admitEvents('a', 10, 100, 10, 1000, now, 1000)
  const usage = new Map<string, number>([['a', 7], ['b', 40]])
  for (let i = 0; i < 1200; i++) usage.set(`bulk${i}`, i)
  t.equal(await limits.reconcileMonth(month, usage), 1 + 1199, 'b and every bulk account but the one at 0 raised')
  t.equal(await redis.get(`${prefix}mo:{a}:${month}`), '10', 'a lagging projection never lowers the counter')
  t.equal(await redis.get(`${prefix}mo:{b}:${month}`), '40')
  t.equal(await redis.get(`${prefix}mo:{bulk1199}:${month}`), '1199')
  t.ok(Number(await redis.pexpiretime(`${prefix}mo:{b}:${month}`)) > now, 'reconciled counters expire too')
  const r = await limits.admitEvents('b', 5, 100, 5, 42, now, 1000)
  t.same([r.monthBefore, r.granted], [40, 2])
  await t.rejects(limits.reconcileMonth('2025-13', usage), RangeError)
  await redis.del(...[...usage.keys()].map((a) => `${prefix}mo:{${a}}:${month}`))
})
