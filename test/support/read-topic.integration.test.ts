// readTopic on a topic whose partitions end in transaction markers, as ingest's transactional
// appends leave them: a consumer is never handed a marker, so a read that waits for the record just
// before the high watermark would wait for ever. The read ends at the markers and returns every
// committed record, none of an aborted transaction.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { createKafka } from '../../services/shared/src/kafka.js'
import { createLogger } from '../../services/shared/src/log.js'
import { readTopic } from './read-topic.js'

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',')

t.test('a topic whose partitions end in commit and abort markers is read to its end', async (t) => {
  // Without the fix the read never returns: this bound turns the hang into a failure.
  t.setTimeout(60_000)
  const kafka = createKafka(
    { brokers, clientId: 'test-read-topic' },
    createLogger('error', {}, () => undefined),
  )
  const admin = kafka.admin()
  await admin.connect()
  const s = randomBytes(4).toString('hex')
  const topic = `test.${s}.events`
  t.teardown(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
    await admin.disconnect()
  })
  await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] })

  const producer = kafka.producer({ transactionalId: `test-read-topic-${s}`, idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const append = async (values: string[], partition: number, commit: boolean) => {
    const txn = await producer.transaction()
    await txn.send({ topic, messages: values.map((value) => ({ value, partition })) })
    await (commit ? txn.commit() : txn.abort())
  }
  await append(['a1', 'a2'], 0, true)
  await append(['a3'], 0, true)
  await append(['b1'], 1, true)
  await append(['b-aborted'], 1, false)

  const ends = await admin.fetchTopicOffsets(topic)
  t.same(
    ends.map((p) => [p.partition, p.high]).sort(),
    [
      [0, '5'],
      [1, '4'],
    ],
    'each partition ends in a marker: offsets 2 and 4, and 1 and 3',
  )
  const read = await readTopic(kafka, topic)
  t.same(
    read.map((r) => [r.partition, r.value?.toString()]).sort(),
    [
      [0, 'a1'],
      [0, 'a2'],
      [0, 'a3'],
      [1, 'b1'],
    ],
    'every committed record, in each partition, and not the aborted one',
  )
})
