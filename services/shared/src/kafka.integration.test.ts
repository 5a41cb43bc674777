// Topic layout is configuration (A3): replication factor and min.insync.replicas reach the
// broker, so production can ask for 3 copies with 2 in sync, and a layout the cluster cannot
// satisfy fails at start with the broker's reason instead of silently using one replica.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { createKafka, ensureTopics } from './kafka.js'
import { createLogger } from './log.js'

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',')
const log = createLogger('error', {}, () => undefined)

/** An admin client and random topic names (the keys topic too), deleted when the test ends. */
async function fixture(t: { teardown(fn: () => unknown): void }) {
  const kafka = createKafka({ brokers, clientId: 'test-topic-layout' }, log)
  const admin = kafka.admin()
  await admin.connect()
  const s = randomBytes(4).toString('hex')
  const topics = {
    events: `test.${s}.events`,
    identifies: `test.${s}.identifies`,
    accounts: `test.${s}.accounts`,
    dlq: `test.${s}.dlq`,
  }
  t.teardown(async () => {
    await admin.deleteTopics({ topics: [...Object.values(topics), `test.${s}.keys`] }).catch(() => undefined)
    await admin.disconnect()
  })
  return { admin, topics, keys: `test.${s}.keys` }
}

t.test('ensureTopics applies the configured replication', async (t) => {
  const { admin, topics } = await fixture(t)

  await t.rejects(
    ensureTopics(admin, topics, { partitions: 2, replicationFactor: 3, minInsyncReplicas: 2 }),
    /Replication-factor is invalid/,
    'three replicas on a one-broker cluster are refused, not quietly reduced',
  )

  const created = await ensureTopics(admin, topics, { partitions: 2, replicationFactor: 1, minInsyncReplicas: 1 })
  t.same(created.sort(), Object.values(topics).sort())
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      {
        type: 2 /* TOPIC */,
        name: topics.events,
        configNames: ['min.insync.replicas', 'retention.ms', 'max.message.bytes'],
      },
    ],
  })
  const entries = Object.fromEntries(described.resources[0].configEntries.map((e) => [e.configName, e]))
  t.equal(entries['min.insync.replicas'].configValue, '1')
  t.equal(entries['min.insync.replicas'].configSource, 1, 'set on the topic itself (TOPIC_CONFIG), not inherited')
  t.equal(entries['retention.ms'].configValue, '-1')
  t.equal(
    entries['max.message.bytes'].configValue,
    String(32 * 1024 * 1024),
    'a 10 MB batch request fits one record batch',
  )
})

t.test(
  'A15: the keys topic is created compacted, one partition, forgetting a tombstone within its configured bounds',
  async (t) => {
    const f = await fixture(t)
    const admin = f.admin
    const topics = { ...f.topics, keys: f.keys }
    const keys = { maxCompactionLagMs: 5000, deleteRetentionMs: 1000 }
    await ensureTopics(admin, topics, { partitions: 2, replicationFactor: 1, minInsyncReplicas: 1, keys })
    const meta = await admin.fetchTopicMetadata({ topics: [topics.keys] })
    t.equal(meta.topics[0]!.partitions.length, 1)
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2 /* TOPIC */, name: topics.keys, configNames: [] }],
    })
    const v = Object.fromEntries(described.resources[0].configEntries.map((e) => [e.configName, e.configValue]))
    t.equal(v['cleanup.policy'], 'compact')
    t.equal(v['max.compaction.lag.ms'], '5000')
    t.equal(v['delete.retention.ms'], '1000')
    t.equal(v['segment.ms'], '5000', 'the active segment rolls, so the cleaner can reach a tombstone in it')
  },
)
