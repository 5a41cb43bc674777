// A3, A5: records the projector cannot decode go to the DLQ topic with the reason and
// their place in the log, the projector goes on, and /metrics and /health report it.
import t from 'tap'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { startServices, waitUntil } from '../support/harness.js'
import { Codec, createRegistry } from '../../schemas/codec.js'
import type { DeadLetterRecord } from '../../schemas/records.js'

const metric = (text: string, name: string) => {
  const m = new RegExp(`^${name.replace(/[{}"=]/g, (c) => '\\' + c)} (\\S+)$`, 'm').exec(text)
  return m ? Number(m[1]) : undefined
}

t.test('bad records go to the DLQ with the reason; the projector keeps going', async (t) => {
  const s = await startServices(t)
  const { key, accountId } = await s.createKey({ type: 'live' })

  const producer = createProducer(s.kafka)
  await producer.connect()
  t.teardown(() => producer.disconnect())
  // Magic byte 0 and the Event schema's id, but a body that schema does not read. (A schema id the
  // registry does not have is no reason to dead-letter: the registry lost it, H41,
  // registry-lost.integration.test.ts.)
  const undecodable = Buffer.alloc(5 + 8, 0xff)
  undecodable[0] = 0
  undecodable.writeInt32BE(s.projector!.deps.codec.schemaId('Event'), 1)
  const sent = await producer.send({
    topic: s.topics.events,
    acks: -1,
    messages: [
      { key: 'garbage', value: Buffer.from('this is not avro'), partition: 0 },
      { key: 'undecodable', value: undecodable, partition: 0 },
    ],
  })
  const firstOffset = BigInt(sent[0]!.baseOffset!)

  // A good event after them is projected.
  const res = await s.post('/v1/event', { event: 'after_garbage', user: { id: 'u1' } }, { key })
  t.equal(res.status, 200)
  await s.waitForRows(
    `SELECT event_id FROM ${s.database}.events FINAL WHERE account_id = '${accountId}' AND event = 'after_garbage'`,
    1,
    30_000,
  )

  // Read the DLQ topic with our own consumer and codec.
  const codec = new Codec(createRegistry(s.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'))
  await codec.register(s.topics)
  const consumer = s.kafka.consumer({ groupId: `dlq-reader-${s.suffix}`, maxWaitTimeInMs: 200 })
  await consumer.connect()
  t.teardown(() => consumer.disconnect())
  await consumer.subscribe({ topic: s.topics.dlq, fromBeginning: true })
  const dead: Array<DeadLetterRecord & { dlq_key: string }> = []
  await consumer.run({
    eachMessage: async ({ message }) => {
      const d = await codec.decode(message.value!)
      t.equal(d.name, 'DeadLetter')
      dead.push({ ...(d.value as DeadLetterRecord), dlq_key: String(message.key) })
    },
  })
  await waitUntil(() => dead.length >= 2, 30_000, 'two records on the DLQ')
  dead.sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)))
  const [garbage, unknown] = dead
  t.match(garbage, {
    topic: s.topics.events,
    partition: 0,
    offset: String(firstOffset),
    error_code: 'UNKNOWN_SCHEMA',
    reason: /not in the Confluent wire format/,
  })
  t.equal(garbage!.value!.toString(), 'this is not avro', 'the original bytes are kept')
  t.equal(garbage!.key!.toString(), 'garbage')
  t.equal(garbage!.dlq_key, `${s.topics.events}/0/${firstOffset}`)
  t.match(unknown, {
    topic: s.topics.events,
    partition: 0,
    offset: String(firstOffset + 1n),
    error_code: 'UNDECODABLE_RECORD',
    reason: /does not decode with schema id/,
  })
  t.ok(garbage!.failed_at > 0)

  // /metrics: lag per partition, rows inserted, insert latency, DLQ count.
  let text = ''
  await waitUntil(
    async () => {
      text = await (await fetch(`${s.projectorUrl}/metrics`)).text()
      return metric(text, `projector_consumer_lag{topic="${s.topics.events}",partition="0"}`) === 0
    },
    15_000,
    'the lag gauge of partition 0 to reach 0',
  )
  t.match(text, /^# TYPE projector_consumer_lag gauge$/m)
  t.equal(metric(text, 'projector_dlq_records_total'), 2, 'the DLQ counter')
  t.ok(metric(text, 'projector_rows_inserted_total{kind="event"}')! >= 1, 'rows inserted')
  t.ok(metric(text, 'projector_insert_seconds_count')! >= 1, 'insert latency histogram')
  t.match(text, /^projector_insert_seconds_bucket\{le="\+Inf"\} \d+$/m)
  t.match(text, /^projector_live_subscribers 0$/m)

  const health = await fetch(`${s.projectorUrl}/health`)
  t.equal(health.status, 200)
  t.match(await health.json(), {
    status: 'ok',
    checks: { clickhouse: { ok: true }, lag: { ok: true, detail: /^0 records$/ } },
  })
  t.equal((await fetch(`${s.projectorUrl}/nope`)).status, 404)
})
