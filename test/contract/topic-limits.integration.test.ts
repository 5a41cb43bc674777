// H37 against the real Kafka: an events topic left at a small max.message.bytes (here 100,000 bytes;
// a topic made by hand keeps the broker's 1 MB default). A request whose records for one user cannot
// fit gets 413 with details.limit_bytes before anything is sent, while other requests keep getting 200
// and the instance stays ready with no producer retired. A topic that cannot take one valid item
// stops ingest at start.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { startServices } from '../support/harness.js'
import { http } from '../support/contract.js'
import { createKafka } from '../../services/shared/src/kafka.js'
import { createLogger } from '../../services/shared/src/log.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { createIngestService } from '../../services/ingest/src/main.js'

const log = createLogger('error', {}, () => undefined)
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',')

/** Creates `topic` with `maxMessageBytes`, removed when the test ends. */
async function smallTopic(t: Test, topic: string, maxMessageBytes: number): Promise<void> {
  const admin = createKafka({ brokers: BROKERS, clientId: 'test-topic-limits' }, log).admin()
  await admin.connect()
  await admin.createTopics({
    topics: [
      { topic, numPartitions: 3, configEntries: [{ name: 'max.message.bytes', value: String(maxMessageBytes) }] },
    ],
    waitForLeaders: true,
  })
  t.teardown(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
    await admin.disconnect()
  })
}

const item = (user: string, kb: number) => ({
  type: 'event',
  event: 'big',
  user: { id: user },
  properties: { blob: 'x'.repeat(kb * 1000) },
})

t.test(
  'a request too large for the topic is 413 before sending; the rest is stored and the instance stays ready',
  async (t) => {
    const events = `test.${randomBytes(5).toString('hex')}.small-events`
    await smallTopic(t, events, 100_000)
    const s = await startServices(t, { projector: false, env: { TOPIC_EVENTS: events } })
    const { key } = await s.createKey({ type: 'live', plan: 'orbit' })
    const post = (path: string, body: unknown) => s.post(path, body, { key })

    // Five 25 KB events of one user: one partition, one record batch of about 125 KB.
    const oneUser = { sent_at: new Date().toISOString(), events: Array.from({ length: 5 }, () => item('u-big', 25)) }
    const [big, ...small] = await Promise.all([
      post('/v1/events', oneUser),
      ...Array.from({ length: 5 }, (_, i) => post('/v1/event', { event: 'small', user: { id: `u-${i}` } })),
    ])
    t.equal(big.status, 413, "one user's records larger than the topic takes")
    t.match(big.body, { success: false, error: { code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: 100_000 } } })
    t.same(
      small.map((r) => r.status),
      [200, 200, 200, 200, 200],
      'requests beside it are stored',
    )

    // The same bytes spread over three users are three batches, each of which fits.
    const spread = await post('/v1/events', {
      sent_at: new Date().toISOString(),
      events: [item('u-a', 25), item('u-b', 25), item('u-c', 25)],
    })
    t.equal(spread.status, 200)
    t.equal(spread.body.data.processed_count, 3)

    const ready = await http(s.ingestAdminUrl, '/health/ready', { method: 'GET' })
    t.equal(ready.status, 200, 'still ready')
    const metrics = (await http(s.ingestAdminUrl, '/metrics', { method: 'GET' })).text
    t.match(metrics, /^ingest_kafka_producers_retired_total 0$/m, 'no producer retired')
    t.match(metrics, /^ingest_kafka_flush_failures_total 0$/m, 'no flush failed')
  },
)

t.test('a topic that cannot take one valid item stops ingest at start, naming it', async (t) => {
  const events = `test.${randomBytes(5).toString('hex')}.tiny-events`
  await smallTopic(t, events, 50_000)
  const s = await startServices(t, { projector: false, ingest: false, env: { TOPIC_EVENTS: events } })
  const svc = await createIngestService(
    loadIngestConfig({ ...s.env, INGEST_INSTANCE_ID: `ingest-${randomBytes(4).toString('hex')}` }),
    log,
  )
  t.teardown(() => svc.close())
  await t.rejects(svc.start(), {
    code: 'TOPIC_CONFIG_REFUSED',
    message: new RegExp(`topic ${events.replace(/\./g, '\\.')} .*50000`),
  })
})
