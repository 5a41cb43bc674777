import t from 'tap'
import { RefusalAggregator, type Refusal } from './refusal-aggregator.js'

const bad = (over: Partial<Refusal> = {}): Refusal => ({
  accountId: 'acc_a',
  environment: 'live',
  code: 'VALIDATION_FAILED',
  endpoint: '/v1/event',
  message: 'event is required',
  body: '{"user":{"id":"u1"}}',
  ...over,
})

t.test('refusals of one account, code and minute become one count', async (t) => {
  let now = 120_000 + 5_000
  const agg = new RefusalAggregator(() => now)
  for (let i = 0; i < 1000; i++) agg.record(bad())
  now = 180_000 + 1 // the next minute
  agg.record(bad())
  agg.record(bad({ code: 'INVALID_JSON' }))
  const b = agg.drain()
  t.same(
    b.counts.map((c) => [c.code, c.minute, c.count]),
    [
      ['VALIDATION_FAILED', 120_000, 1000],
      ['VALIDATION_FAILED', 180_000, 1],
      ['INVALID_JSON', 180_000, 1],
    ],
  )
  t.equal(b.samples.length, 5, 'samples capped per account')
  t.equal(b.droppedSamples, 997)
  t.same(agg.drain().counts, [], 'a drain empties it')
})

t.test('counts keep accounts, environments and endpoints apart', async (t) => {
  const agg = new RefusalAggregator(() => 0)
  agg.record(bad())
  agg.record(bad({ accountId: 'acc_b' }))
  agg.record(bad({ environment: 'test' }))
  agg.record(bad({ endpoint: '/v1/events' }))
  t.equal(agg.drain().counts.length, 4)
})

t.test('one account flooding cannot take another account’s samples', async (t) => {
  const agg = new RefusalAggregator(() => 0, { maxCounters: 100, samplesPerAccount: 3, maxSamples: 10 })
  for (let i = 0; i < 10_000; i++) agg.record(bad({ accountId: 'acc_flood' }))
  agg.record(bad({ accountId: 'acc_quiet' }))
  const b = agg.drain()
  t.same(
    b.samples.map((s) => s.accountId),
    ['acc_flood', 'acc_flood', 'acc_flood', 'acc_quiet'],
  )
  t.same(
    b.counts.map((c) => [c.accountId, c.count]),
    [
      ['acc_flood', 10_000],
      ['acc_quiet', 1],
    ],
  )
})

t.test('memory stays bounded with 100,000 distinct bad requests', async (t) => {
  let now = 0
  const limits = { maxCounters: 1000, samplesPerAccount: 5, maxSamples: 50 }
  const agg = new RefusalAggregator(() => now, limits)
  for (let i = 0; i < 100_000; i++) {
    now = i * 1000 // a new minute every 60 requests
    agg.record(bad({ accountId: `acc_${i}`, code: `CODE_${i % 7}`, body: 'x'.repeat(10_000) }))
  }
  t.ok(agg.size() <= limits.maxCounters + 2 * limits.maxSamples, `held ${agg.size()}`)
  const b = agg.drain()
  t.equal(b.counts.length, 1000)
  t.equal(b.droppedCounts, 99_000)
  t.equal(b.samples.length, 50)
  t.equal(b.droppedSamples, 99_950)
  t.ok(
    b.samples.every((s) => s.body.length <= 2048),
    'bodies truncated',
  )
})

t.test('a sample keeps the code, message and time but no key', async (t) => {
  const key = 'svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd'
  const agg = new RefusalAggregator(() => 42)
  agg.record(bad({ body: JSON.stringify({ writeKey: key, type: 'track', properties: { pasted: key } }) }))
  const [s] = agg.drain().samples
  t.match(s, { accountId: 'acc_a', code: 'VALIDATION_FAILED', message: 'event is required', at: 42 })
  t.notMatch(s!.body, /svc_live_/)
  t.match(s!.body, /"type":"track"/)
})
