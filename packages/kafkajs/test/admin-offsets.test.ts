// The admin's offset reads retry a partition whose leader is moving or not yet serving (CHANGES.md,
// "Fixes"): right after a topic is made, a KRaft broker can answer ListOffsets with
// NOT_LEADER_FOR_PARTITION, and upstream's fetchTopicOffsets gave up at once. The cluster here is a
// stand-in that answers as the broker did; the retry and refresh are the vendored admin's.
import t from 'tap'
import { src } from './support.js'

const createAdmin = src('admin/index.js')
const { createErrorFromCode } = src('protocol/error.js')
const NOT_LEADER_FOR_PARTITION = 6
const LEADER_NOT_AVAILABLE = 5
const TOPIC_AUTHORIZATION_FAILED = 29

const silent = { namespace: () => silent, info() {}, warn() {}, error() {}, debug() {} }

/** A cluster whose first `failures` ListOffsets answers carry `code`, then offsets 0..5. */
function clusterFailing(code: number, failures: number) {
  const seen = { listOffsets: 0, refreshes: 0 }
  const cluster = {
    connect: async () => {},
    addTargetTopic: async () => {},
    refreshMetadataIfNecessary: async () => {},
    refreshMetadata: async () => void seen.refreshes++,
    findTopicPartitionMetadata: () => [{ partitionId: 0 }],
    fetchTopicsOffset: async ([q]: Array<{ topic: string; fromBeginning?: boolean }>) => {
      if (seen.listOffsets++ < failures) throw createErrorFromCode(code)
      return [{ topic: q!.topic, partitions: [{ partition: 0, offset: q!.fromBeginning ? '0' : '5' }] }]
    },
  }
  const admin = createAdmin({ logger: silent, cluster, retry: { retries: 5, initialRetryTime: 1 } })
  return { admin, seen }
}

for (const [name, code] of [
  ['NOT_LEADER_FOR_PARTITION', NOT_LEADER_FOR_PARTITION],
  ['LEADER_NOT_AVAILABLE', LEADER_NOT_AVAILABLE],
] as const) {
  t.test(`fetchTopicOffsets: ${name} twice, then the offsets`, async (t) => {
    const { admin, seen } = clusterFailing(code, 2)
    t.same(await admin.fetchTopicOffsets('events'), [{ partition: 0, offset: '5', high: '5', low: '0' }])
    t.equal(seen.refreshes, 2, 'the metadata was refreshed before each retry')
  })

  t.test(`fetchTopicOffsetsByTimestamp: ${name} once, then the offsets`, async (t) => {
    const { admin, seen } = clusterFailing(code, 1)
    t.same(await admin.fetchTopicOffsetsByTimestamp('events', 0), [{ partition: 0, offset: '5' }])
    t.equal(seen.refreshes, 1)
  })
}

t.test('another error still fails at once, unretried', async (t) => {
  const { admin, seen } = clusterFailing(TOPIC_AUTHORIZATION_FAILED, 1)
  const error = await admin.fetchTopicOffsets('events').catch((e: { type: string }) => e)
  t.equal(error.type, 'TOPIC_AUTHORIZATION_FAILED', 'the broker\'s answer')
  t.equal(seen.listOffsets, 1, 'asked once')
})
