// H32: requests refused for their body have a budget of their own per key and client address, and test
// keys a per-minute window of their own, so neither a public test key nor a public key sending bodies
// that are refused can starve an account's valid live traffic. The report this answers: 99
// `POST /v1/event {}` with a Hobby account's test key, then its live server key got 429 for a minute.
// Without REDIS_URL and with it.
import t, { type Test } from 'tap'
import { startServices } from '../support/harness.js'
import { expectError, freshMinute } from '../support/contract.js'
import { redisUnderPrefix } from '../support/redis-env.js'

const ev = { event: 'page_viewed', user: { id: 'u1' } }

async function refusedRequests(t: Test, env: Record<string, string>) {
  const s = await startServices(t, { env })
  const live = await s.createKey({ type: 'live', plan: 'hobby' })
  const test = await s.createKey({ type: 'test', account: live.accountId })
  const test2 = await s.createKey({ type: 'test', account: live.accountId })
  await freshMinute(20_000)

  const bad = []
  for (let i = 0; i < 99; i++) bad.push(await s.post('/v1/event', {}, { key: test.key }))
  t.same(
    bad.slice(0, 10).map((r) => r.status),
    new Array(10).fill(400),
    'the first 10 are refused for their body',
  )
  t.ok(
    bad.slice(10).every((r) => r.status === 429),
    'then the key and address are refused before the body',
  )
  expectError(t, bad[10]!, 429, 'RATE_LIMIT_EXCEEDED', 'past the refused budget')
  t.equal(bad[10]!.headers.get('x-ratelimit-limit'), '10', 'the budget it ran out of')
  t.ok(Number(bad[10]!.headers.get('retry-after')) >= 1)

  const l = await s.post('/v1/event', ev, { key: live.key })
  t.equal(l.status, 200, 'the live server key is not starved')
  t.equal(
    l.headers.get('x-ratelimit-remaining'),
    '99',
    'none of the refused requests was counted in the account window',
  )
  t.equal((await s.post('/v1/event', ev, { key: test2.key })).status, 200, 'another test key of the account passes')
  t.equal(
    (await s.post('/v1/event', ev, { key: test.key })).status,
    429,
    'the key that spent its budget waits for the next minute from this address',
  )

  // Test traffic cannot starve live traffic: the test keys' window is their own.
  const ok = []
  for (let i = 0; i < 99; i++) ok.push((await s.post('/v1/event', ev, { key: test2.key })).status)
  t.same(ok, new Array(99).fill(200), '100 test-key requests this minute')
  expectError(
    t,
    await s.post('/v1/event', ev, { key: test2.key }),
    429,
    'RATE_LIMIT_EXCEEDED',
    'the 101st test-key request',
  )
  const l2 = await s.post('/v1/event', ev, { key: live.key })
  t.equal(l2.status, 200, 'live traffic still passes')
  t.equal(l2.headers.get('x-ratelimit-remaining'), '98')
}

t.test('refused requests and test keys cannot starve live traffic, without Redis', (t) => refusedRequests(t, {}))

t.test('refused requests and test keys cannot starve live traffic, with Redis', async (t) => {
  const { redis, prefix, env } = redisUnderPrefix(t)
  await refusedRequests(t, env)
  t.ok((await redis.keys(`${prefix}rl:x:*`)).length > 0, 'the refused budget was counted in Redis')
})
