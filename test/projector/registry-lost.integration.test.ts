// H41: a registry that lost a schema id records on the topics carry (its storage lost, or the
// schema deleted for good) stops that partition: nothing dead-lettered, nothing skipped, no offset
// committed past it; /health names the registry, /metrics counts it, and the partition resumes
// once the registry has the id again. The 404 is the real registry's: the schema is registered
// and deleted for good there; the proxy (test/support/registry-proxy.ts) plays the restore.
import t from 'tap'
import { failingChecks } from '../../services/shared/src/http/index.js'
import avro from 'avsc'
import { createProducer } from '../../services/shared/src/kafka/client.js'
import { startServices, waitUntil } from '../support/harness.js'
import { registerThenLose, startRegistryProxy } from '../support/registry-proxy.js'
import { makeEvent } from '../support/clickhouse-helpers.js'
import { loadAvsc } from '../../schemas/codec.js'

const REGISTRY_URL = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'
const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])

t.test('a schema id the registry lost stalls its partition until the registry has it again (H41)', async (t) => {
  const proxy = await startRegistryProxy(new URL(REGISTRY_URL).origin)
  t.teardown(() => proxy.stop())
  const s = await startServices(t, {
    ingest: false,
    env: { SCHEMA_REGISTRY_URL: proxy.url(new URL(REGISTRY_URL).pathname), PROJECTOR_RETRIES: '1' },
  })
  const codec = s.projector!.deps.codec
  // The Event schema as an older writer registered it (its own id), then lost by the registry.
  const lostSchema = { ...loadAvsc('Event'), doc: `written before the registry lost it (${s.suffix})` }
  const lostId = await registerThenLose(REGISTRY_URL, `${s.topics.events}-lost`, lostSchema)
  const withLostId = (r: object) => {
    const body = avro.Type.forSchema(lostSchema as any).toBuffer(r)
    const b = Buffer.alloc(5 + body.length)
    b.writeInt32BE(lostId, 1)
    body.copy(b, 5)
    return b
  }
  const account = `acct_${s.suffix}`
  const ev = (name: string) =>
    makeEvent({ account_id: account, event: name, timestamp: Date.now(), received_at: Date.now() })

  const producer = createProducer(s.kafka)
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const [sent] = await producer.send({
    topic: s.topics.events,
    acks: -1,
    messages: [
      { key: 'k', value: withLostId(ev('lost_schema')), partition: 0 },
      { key: 'k', value: codec.encode('Event', ev('after_on_same_partition')), partition: 0 },
    ],
  })
  await producer.send({
    topic: s.topics.events,
    acks: -1,
    messages: [{ key: 'k', value: codec.encode('Event', ev('other_partition')), partition: 1 }],
  })

  const events = `SELECT event FROM ${s.database}.events FINAL WHERE account_id = '${account}' ORDER BY event`
  let metrics = ''
  await waitUntil(
    async () => {
      metrics = await (await fetch(`${s.projectorUrl}/metrics`)).text()
      // Or the record dead-lettered, as before H41: the assertions below then say so.
      return (
        metric(metrics, 'projector_registry_schema_missing_total') >= 2 ||
        metric(metrics, 'projector_dlq_records_total') > 0
      )
    },
    30_000,
    'the projector to count the missing schema',
  )

  // kafkajs fetches the next records of every partition of a broker only when the batch in
  // progress ends, so the other partition may or may not have been written by now.
  t.same(
    (await s.query<{ event: string }>(events)).filter((r) => r.event !== 'other_partition'),
    [],
    'nothing of the stalled partition is written',
  )
  t.equal(metric(metrics, 'projector_dlq_records_total'), 0, 'nothing dead-lettered')
  const dlq = s.kafka.admin()
  await dlq.connect()
  t.teardown(() => dlq.disconnect())
  t.same(
    (await dlq.fetchTopicOffsets(s.topics.dlq)).map((p) => p.high),
    (await dlq.fetchTopicOffsets(s.topics.dlq)).map(() => '0'),
    'the DLQ topic is empty',
  )
  const committed = (
    await dlq.fetchOffsets({ groupId: s.env.PROJECTOR_GROUP_ID!, topics: [s.topics.events] })
  )[0]!.partitions.find((p) => p.partition === 0)!
  t.ok(
    BigInt(committed.offset) <= BigInt(sent!.baseOffset!),
    `no offset committed past the record (committed ${committed.offset})`,
  )
  const health = await fetch(`${s.projectorUrl}/health/ready`)
  t.equal(health.status, 503, 'not ready')
  const body = await health.json()
  t.match(body, { checks: { registry: { ok: false, detail: /SCHEMA_MISSING/ } } }, 'readiness names the registry')
  t.same(failingChecks(body.checks), ['registry'], 'and only it')

  proxy.restore(lostId, lostSchema)
  await s.waitForRows(events, 3, 60_000)
  t.same(
    await s.query(events),
    [{ event: 'after_on_same_partition' }, { event: 'lost_schema' }, { event: 'other_partition' }],
    'the partition resumes in order once the registry has the id',
  )
  await waitUntil(async () => (await fetch(`${s.projectorUrl}/health/ready`)).status === 200, 30_000, 'ready again')
  t.equal(
    metric(await (await fetch(`${s.projectorUrl}/metrics`)).text(), 'projector_dlq_records_total'),
    0,
    'still nothing dead-lettered',
  )
})
