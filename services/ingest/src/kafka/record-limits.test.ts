// H37: what the event topics take bounds the flushes and each request; a topic that cannot take one
// valid item stops ingest at start.
import t from 'tap'
import {
  planFlushes,
  oversizedTopic,
  BATCH_OVERHEAD_BYTES,
  RECORD_OVERHEAD_BYTES,
  MAX_ITEM_RECORD_BYTES,
  LARGEST_REQUEST_BYTES,
} from './record-limits.js'
import { TopicConfigError } from '../../../shared/src/kafka.js'

const MiB32 = 32 * 1024 * 1024

t.test('topics created by the services (32 MiB) change nothing', async (t) => {
  const plan = planFlushes(
    new Map([
      ['events', MiB32],
      ['identifies', MiB32],
    ]),
    900_000,
  )
  t.same(plan, { maxBatchBytes: 900_000, warnings: [] })
  t.ok(LARGEST_REQUEST_BYTES < MiB32, 'every request the body limits allow fits')
})

t.test(
  "a topic left at the broker's 1 MB default lowers the flush cap and warns that large requests get 413",
  async (t) => {
    const plan = planFlushes(
      new Map([
        ['events', 1_048_588],
        ['identifies', MiB32],
      ]),
      2_000_000,
    )
    t.equal(plan.maxBatchBytes, 1_048_588 - BATCH_OVERHEAD_BYTES)
    t.equal(plan.warnings.length, 2)
    t.match(plan.warnings[0], /topic events .*1048588.*PRODUCER_MAX_BATCH_BYTES 2000000/)
    t.match(plan.warnings[1], /topic events .*413/)
  },
)

t.test('a topic that cannot take one valid item stops start-up, naming it', async (t) => {
  t.throws(
    () =>
      planFlushes(
        new Map([
          ['events', MiB32],
          ['identifies', 50_000],
        ]),
        900_000,
      ),
    TopicConfigError,
  )
  t.throws(() => planFlushes(new Map([['identifies', 50_000]]), 900_000), { message: /topic identifies .*50000/ })
  t.doesNotThrow(() => planFlushes(new Map([['events', MAX_ITEM_RECORD_BYTES + BATCH_OVERHEAD_BYTES]]), 900_000))
})

t.test("a request is too large only when one key's records cannot fit its topic", async (t) => {
  const limits = new Map([
    ['events', 100_000],
    ['identifies', 200_000],
  ])
  const rec = (topic: string, key: string, bytes: number) => ({ topic, key, value: Buffer.alloc(bytes) })
  t.equal(oversizedTopic([rec('events', 'u', 1000)], limits, 100_000), undefined)
  t.same(oversizedTopic([rec('events', 'u', 60_000), rec('events', 'u', 60_000)], limits, 100_000), {
    topic: 'events',
    limitBytes: 100_000,
  })
  t.equal(
    oversizedTopic([rec('events', 'u1', 60_000), rec('events', 'u2', 60_000)], limits, 100_000),
    undefined,
    'two users: two batches',
  )
  t.equal(
    oversizedTopic([rec('identifies', 'u', 60_000), rec('identifies', 'u', 60_000)], limits, 100_000),
    undefined,
    'each topic its own limit',
  )
  // The batch's framing counts: records that alone fill the limit do not fit with it.
  const exact = 100_000 - BATCH_OVERHEAD_BYTES - RECORD_OVERHEAD_BYTES - 1
  t.equal(oversizedTopic([rec('events', 'u', exact)], limits, 100_000), undefined)
  t.ok(oversizedTopic([rec('events', 'u', exact + 1)], limits, 100_000))
  t.ok(oversizedTopic([rec('events', 'ü', exact)], limits, 100_000), 'a key is counted in UTF-8 bytes')
})
