// H27, A5: a registry outage must not make the accounts follower skip a record (a key
// revocation would be missed until restart). The registry is the real one behind a TCP gate.
import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { createProducer, type Kafka } from '../kafka/client.js'
import avro from 'avsc'
import { Codec, createRegistry, loadAvsc } from '../../../../schemas/codec.js'
import { createKafka, ensureTopics } from '../kafka.js'
import { createLogger } from '../log.js'
import { AccountsWriter, followAccounts, type AccountsEntry } from './accounts-log.js'
import { Readiness } from '../wait-for.js'
import { waitUntil } from '../../../../test/support/harness.js'
import { startTcpGate } from '../../../../test/support/tcp-gate.js'
import { registerThenLose, startRegistryProxy } from '../../../../test/support/registry-proxy.js'

const REGISTRY_URL = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'
const log = createLogger((process.env.TEST_LOG_LEVEL as any) ?? 'error', { test: 'accounts-log' })

/** A follower of `topic` with fast retries, stopped when the test ends; what it applied, and whether it is ready. */
async function startFollower(t: Test, kafka: Kafka, codec: Codec, topic: string, suffix: string) {
  const applied: AccountsEntry[] = []
  const readiness = new Readiness(['kafka', 'registry'])
  const follower = await followAccounts(kafka, codec, topic, (e) => applied.push(e), log, {
    groupPrefix: `test-${suffix}`,
    readiness,
    retryMs: { initialMs: 50, maxMs: 200 },
  })
  t.teardown(() => follower.stop())
  let ready = false
  void follower.ready.then(() => (ready = true))
  return { applied, readiness, follower, isReady: () => ready }
}

t.test('the follower waits for the registry instead of skipping the record', async (t) => {
  const suffix = randomBytes(5).toString('hex')
  const topics = {
    events: `test.${suffix}.events`,
    identifies: `test.${suffix}.identifies`,
    accounts: `test.${suffix}.accounts`,
    dlq: `test.${suffix}.dlq`,
  }
  const kafka = createKafka(
    { brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(','), clientId: `test-${suffix}` },
    log,
  )
  const admin = kafka.admin()
  await admin.connect()
  await ensureTopics(admin, topics, { partitions: 1, replicationFactor: 1, minInsyncReplicas: 1 })
  t.teardown(async () => {
    await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined)
    await admin.disconnect()
  })
  const writerCodec = new Codec(createRegistry(REGISTRY_URL))
  await writerCodec.register(topics)
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  await new AccountsWriter(producer, writerCodec, topics.accounts).write([
    {
      kind: 'Plan',
      value: {
        name: `plan-${suffix}`,
        requests_per_minute: 1,
        events_per_second: 2,
        events_per_month: 3,
        emails_per_month: 4,
        updated_at: 5,
      },
    },
  ])

  const gate = await startTcpGate({ host: new URL(REGISTRY_URL).hostname, port: Number(new URL(REGISTRY_URL).port) })
  t.teardown(() => gate.stop())
  // A fresh codec: the writer schema must come from the registry, which is behind the closed gate.
  const codec = new Codec(createRegistry(gate.url(new URL(REGISTRY_URL).pathname)))
  const { applied, readiness, follower, isReady } = await startFollower(t, kafka, codec, topics.accounts, suffix)
  // Each attempt is several connections (the registry client retries within one call).
  await waitUntil(() => gate.refused >= 12, 60_000, 'the follower to try the registry a few times')
  t.same(applied, [], 'nothing applied while the registry is away')
  t.notOk(isReady(), 'not ready while the record is waiting')
  t.match(readiness.snapshot(), { kafka: 'ok', registry: /^unavailable/ })
  gate.open()
  await follower.ready
  t.equal(applied.length, 1, 'the record is applied once the registry answers')
  t.match(applied[0], { kind: 'Plan', value: { name: `plan-${suffix}`, events_per_month: 3 } })
  t.equal(readiness.snapshot().registry, 'ok')
})

// H41: a record whose schema id the registry lost (the 404 is the real registry's: registered, then
// deleted for good) is waited for like an outage, never skipped; the record after it waits too.
t.test('the follower waits for a schema the registry lost instead of skipping the record (H41)', async (t) => {
  const suffix = randomBytes(5).toString('hex')
  const topic = `test.${suffix}.accounts`
  const kafka = createKafka(
    { brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(','), clientId: `test-${suffix}` },
    log,
  )
  const admin = kafka.admin()
  await admin.connect()
  await ensureTopics(
    admin,
    {
      events: `test.${suffix}.events`,
      identifies: `test.${suffix}.identifies`,
      accounts: topic,
      dlq: `test.${suffix}.dlq`,
    },
    { partitions: 1, replicationFactor: 1, minInsyncReplicas: 1 },
  )
  t.teardown(async () => {
    await admin
      .deleteTopics({ topics: [`test.${suffix}.events`, `test.${suffix}.identifies`, topic, `test.${suffix}.dlq`] })
      .catch(() => undefined)
    await admin.disconnect()
  })
  const lostSchema = { ...loadAvsc('Plan'), doc: `written before the registry lost it (${suffix})` }
  const lostId = await registerThenLose(REGISTRY_URL, `${topic}-lost`, lostSchema)
  const plan = (name: string) => ({
    name,
    requests_per_minute: 1,
    events_per_second: 2,
    events_per_month: 3,
    emails_per_month: 4,
    updated_at: 5,
  })
  const body = avro.Type.forSchema(lostSchema as any).toBuffer(plan(`lost-${suffix}`))
  const lostRecord = Buffer.alloc(5 + body.length)
  lostRecord.writeInt32BE(lostId, 1)
  body.copy(lostRecord, 5)
  const writerCodec = new Codec(createRegistry(REGISTRY_URL))
  await writerCodec.register({
    events: `test.${suffix}.events`,
    identifies: `test.${suffix}.identifies`,
    accounts: topic,
    dlq: `test.${suffix}.dlq`,
  })
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  await producer.send({ topic, acks: -1, messages: [{ key: `plan:lost-${suffix}`, value: lostRecord }] })
  await new AccountsWriter(producer, writerCodec, topic).write([{ kind: 'Plan', value: plan(`after-${suffix}`) }])

  const proxy = await startRegistryProxy(new URL(REGISTRY_URL).origin)
  t.teardown(() => proxy.stop())
  const { applied, readiness, follower, isReady } = await startFollower(
    t,
    kafka,
    new Codec(createRegistry(proxy.url(new URL(REGISTRY_URL).pathname))),
    topic,
    suffix,
  )
  await waitUntil(
    () => isReady() || /SCHEMA_MISSING/.test(readiness.snapshot().registry ?? ''),
    30_000,
    'the follower to find the schema missing',
  )
  t.same(applied, [], 'neither the record nor the one after it is applied')
  t.notOk(isReady(), 'not ready')
  t.match(readiness.snapshot(), { registry: /SCHEMA_MISSING/ })
  proxy.restore(lostId, lostSchema)
  await follower.ready
  t.same(
    applied.map((e) => (e.value as { name: string }).name),
    [`lost-${suffix}`, `after-${suffix}`],
    'both applied, in order, once the registry has the id',
  )
  t.equal(readiness.snapshot().registry, 'ok')
})
