import t from 'tap'
import { createLogger } from '../../../shared/src/log.js'
import { RefusalAggregator } from './refusal-aggregator.js'
import { RefusalPublisher, type RefusalMessage } from './refusal-publisher.js'

const log = createLogger('error', {}, () => undefined)
const refusal = (accountId: string, code = 'INVALID_JSON') => ({
  accountId,
  environment: 'live',
  code,
  endpoint: '/v1/event',
  message: 'not JSON',
  body: '{x',
})

function setup(send: (m: RefusalMessage[]) => Promise<void>) {
  const aggregator = new RefusalAggregator(() => 60_000)
  const outcomes: unknown[] = []
  const p = new RefusalPublisher({
    aggregator,
    send,
    encode: (r) => Buffer.from(JSON.stringify(r)),
    instanceId: 'ingest-1',
    now: () => 61_000,
    log,
    onDrain: (o) => void outcomes.push(o),
  })
  return { aggregator, p, outcomes }
}

t.test('one record per account per drain, keyed by account', async (t) => {
  const sent: RefusalMessage[][] = []
  const { aggregator, p, outcomes } = setup(async (m) => void sent.push(m))
  for (let i = 0; i < 100; i++) aggregator.record(refusal('acct_a'))
  aggregator.record(refusal('acct_a', 'VALIDATION_FAILED'))
  aggregator.record(refusal('acct_b'))
  await p.flush()
  t.equal(sent.length, 1, 'one send')
  t.same(
    sent[0]!.map((m) => m.key),
    ['acct_a', 'acct_b'],
  )
  const a = JSON.parse(sent[0]![0]!.value.toString())
  t.match(a, { account_id: 'acct_a', instance_id: 'ingest-1', drained_at: 61_000 })
  t.same(
    a.counts.map((c: { code: string; count: number }) => [c.code, c.count]),
    [
      ['INVALID_JSON', 100],
      ['VALIDATION_FAILED', 1],
    ],
  )
  t.equal(a.samples.length, 5)
  t.match(outcomes, [{ records: 2, droppedSamples: 96, failed: false }])
  await p.flush()
  t.equal(sent.length, 1, 'nothing to drain: nothing sent')
})

t.test('a failed send drops the batch, counts it and never rejects', async (t) => {
  let fail = true
  const sent: RefusalMessage[][] = []
  const { aggregator, p, outcomes } = setup(async (m) => {
    if (fail) throw new Error('broker away')
    sent.push(m)
  })
  aggregator.record(refusal('acct_a'))
  await p.flush()
  fail = false
  await p.flush()
  t.same(sent, [], 'the failed batch is not kept for later')
  t.match(outcomes[0], { records: 0, failed: true })
})
