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

t.test(
  'per-minute take: same counts as the in-memory limiter, refusals consume nothing, key expires with its window',
  async (t) => {
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
  },
)

const none = (n: number): undefined[] => new Array(n).fill(undefined)
const pick = (a: { secondBefore: number; monthBefore: number; granted: number; charged?: number }) => ({
  secondBefore: a.secondBefore,
  monthBefore: a.monthBefore,
  granted: a.granted,
})

t.test('events: per-second all-or-nothing, then the monthly reservation, in one call', async (t) => {
  const { redis, prefix, limits } = await open(t)
  // a second in the near future, so its keys (expiring at its end) outlive the test's calls
  const now = Date.now() - (Date.now() % 1000) + 30_000 + 250
  t.same(pick(await limits.takeEvents('acc', 'live', 6, 10, none(6), 8, now, 1000)), {
    secondBefore: 0,
    monthBefore: 0,
    granted: 6,
  })
  t.same(
    pick(await limits.takeEvents('acc', 'live', 5, 10, none(5), 8, now + 1, 1000)),
    { secondBefore: 6, monthBefore: -1, granted: 0 },
    'refused by the second: nothing taken',
  )
  const partly = await limits.takeEvents('acc', 'live', 4, 10, none(4), 8, now + 2, 1000)
  t.same(pick(partly), { secondBefore: 6, monthBefore: 6, granted: 2 }, 'the month grants what is left')
  t.same(partly.accepted, [true, true, false, false], 'the first items')
  t.same(
    pick(await limits.takeEvents('acc', 'live', 2, 20, [], 8, now + 1000, 1000)),
    { secondBefore: 0, monthBefore: 0, granted: 0 },
    'no countable events: the month is not read or touched',
  )
  const month = new Date(now).toISOString().slice(0, 7)
  const mk = `${prefix}mo:{acc}:${month}`
  t.equal(await redis.get(mk), '8')
  const d = new Date(now)
  t.equal(
    Number(await redis.pexpiretime(mk)),
    Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) + MONTH_KEY_MARGIN_MS,
  )
  t.equal(Number(await redis.pexpiretime(`${prefix}ev:{acc}:${now - (now % 1000)}`)), now - (now % 1000) + 1000)

  t.equal(await limits.releaseMonth('acc', 3, now), 5)
  t.equal(await limits.releaseMonth('acc', 100, now), 0, 'never below zero')
  t.equal(await limits.releaseMonth('other', 3, now), 0)
  t.equal(
    await redis.exists(`${prefix}mo:{other}:${month}`),
    0,
    'releasing a missing (expired) counter creates nothing',
  )
})

t.test(
  'message ids: a retried id is admitted without being counted again (H34), test events have their own month (H33)',
  async (t) => {
    const { redis, prefix, limits } = await open(t)
    const now = Date.now() - (Date.now() % 1000) + 30_000
    const month = new Date(now).toISOString().slice(0, 7)
    const same = new Array(100).fill('m1')
    const first = await limits.takeEvents('acc', 'live', 100, 1000, same, 5, now, 1000)
    t.same([first.granted, first.charged, first.newIds], [100, 1, ['m1']], '100 items of one id: one counted')
    for (let i = 1; i < 10; i++) {
      const again = await limits.takeEvents('acc', 'live', 100, 100_000, same, 5, now + i, 1000)
      t.same([again.granted, again.charged], [100, 0], `retry ${i}: admitted, nothing counted`)
    }
    t.equal(await redis.get(`${prefix}mo:{acc}:${month}`), '1')
    const mixed = await limits.takeEvents(
      'acc',
      'live',
      7,
      100_000,
      ['m1', 'm2', undefined, 'm2', 'm3', undefined, 'm4'],
      5,
      now + 20,
      1000,
    )
    t.same(
      mixed.accepted,
      [true, true, true, true, true, true, false],
      'm1 free, m2 counted once, then new items while the 4 left last',
    )
    t.same([mixed.charged, mixed.newIds], [4, ['m2', 'm3']])
    t.equal(await redis.get(`${prefix}mo:{acc}:${month}`), '5')
    t.ok(Number(await redis.pttl(`${prefix}id:{acc}:live:m2`)) > 590_000, 'ids are kept for USAGE_IN_FLIGHT_MS')
    const after = await limits.takeEvents('acc', 'live', 2, 100_000, ['m3', 'm9'], 5, now + 30, 1000)
    t.same(after.accepted, [true, false], 'at the limit, a retry of a counted id still passes; a new one does not')

    const test = await limits.takeEvents('acc', 'test', 3, 100_000, ['m1', undefined, undefined], 2, now + 40, 1000)
    t.same(test.accepted, [true, true, false], 'test events: their own counter and ids')
    t.equal(await redis.get(`${prefix}mo:{acc}:test:${month}`), '2')

    t.equal(await limits.releaseMonth('acc', 4, now + 20, 'live', ['m2', 'm3']), 1, 'a release gives the count back')
    t.equal(await redis.exists(`${prefix}id:{acc}:live:m2`), 0, 'and forgets the ids it counted')
    t.equal(
      await redis.hget(`${prefix}mm:{acc}:${month}`, String(now + 20 - ((now + 20) % 60_000))),
      '1',
      "the minute's count too",
    )
  },
)

t.test(
  'reconcile: raised to the projection, lowered to the projection plus what is in flight (H34), in chunks',
  async (t) => {
    const { redis, prefix, limits } = await open(t)
    const now = Date.now() + 30_000
    const month = new Date(now).toISOString().slice(0, 7)
    await limits.takeEvents('a', 'live', 10, 100, none(10), 1000, now, 1000)
    const usage = new Map<string, number>([
      ['a', 7],
      ['b', 40],
    ])
    for (let i = 0; i < 1200; i++) usage.set(`bulk${i}`, i)
    t.equal(
      await limits.reconcileMonth(month, usage, now),
      1 + 1199,
      'b and every bulk account but the one at 0 raised',
    )
    t.equal(await redis.get(`${prefix}mo:{a}:${month}`), '10', 'a lagging projection does not lower what is in flight')
    t.equal(await redis.get(`${prefix}mo:{b}:${month}`), '40')
    t.equal(await redis.get(`${prefix}mo:{bulk1199}:${month}`), '1199')
    t.ok(Number(await redis.pexpiretime(`${prefix}mo:{b}:${month}`)) > now, 'reconciled counters expire too')
    const r = await limits.takeEvents('b', 'live', 5, 100, none(5), 42, now, 1000)
    t.same([r.monthBefore, r.granted], [40, 2])
    await redis.set(`${prefix}mo:{b}:${month}`, 900) // counted too much (a retry after its id was forgotten)
    t.equal(await limits.reconcileMonth(month, new Map([['b', 40]]), now), 1)
    t.equal(await redis.get(`${prefix}mo:{b}:${month}`), '42', 'lowered to 40 stored + 2 counted within the window')
    t.equal(await limits.reconcileMonth(month, new Map([['b', 40]]), now + 11 * 60_000), 1)
    t.equal(await redis.get(`${prefix}mo:{b}:${month}`), '40', 'once the window has passed, to what is stored')
    await t.rejects(limits.reconcileMonth('2025-13', usage, now), RangeError)
    await redis.del(...[...usage.keys()].flatMap((a) => [`${prefix}mo:{${a}}:${month}`, `${prefix}mm:{${a}}:${month}`]))
  },
)

t.test(
  'refused-for-body budget (H32): a refused request is given back to the account and counted per key and address',
  async (t) => {
    const { redis, prefix, limits } = await open(t)
    const now = T0 + MIN + 10
    for (let i = 0; i < 3; i++) {
      t.same(
        await limits.takeGuarded('a:acc', 5, 'x:k1:1.2.3.4', 2, now, MIN),
        [0, i],
        `refused request ${i + 1}: counted, then given back`,
      )
      await limits.refusedBody('a:acc', 'x:k1:1.2.3.4', now, MIN)
    }
    t.same(
      await limits.takeGuarded('a:acc', 5, 'x:k1:1.2.3.4', 2, now, MIN),
      [0, 3],
      'the budget is spent: nothing taken',
    )
    t.same(
      await limits.takeGuarded('a:acc', 5, 'x:k2:1.2.3.4', 2, now, MIN),
      [0, 0],
      'another key of the account still passes',
    )
    t.equal(await redis.get(`${prefix}rl:a:acc:${T0 + MIN}`), '1')
    t.equal(Number(await redis.pexpiretime(`${prefix}rl:x:k1:1.2.3.4:${T0 + MIN}`)), T0 + 2 * MIN)
  },
)
