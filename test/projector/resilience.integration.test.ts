// H27, A5: the projector survives its dependencies. A registry that does not answer is
// waited out (never a dead letter); a ClickHouse outage longer than the group session does not get
// the member evicted; stop() commits what it wrote. The registry and ClickHouse are the real
// servers, reached through a TCP gate the test closes and opens.
import t, { type Test } from 'tap'
import { randomBytes, randomUUID } from 'node:crypto'
import { createClient as createClickHouseClient, ClickHouseLogLevel } from '@clickhouse/client'
import { createProducer, type Kafka, type Producer } from '../../services/shared/src/kafka/client.js'
import { Codec, createRegistry } from '../../schemas/codec.js'
import { createKafka, ensureTopics } from '../../services/shared/src/kafka.js'
import { createLogger } from '../../services/shared/src/log.js'
import { waitUntil } from '../support/harness.js'
import { Projector, type ProjectorOptions } from '../../services/projector/src/consume/projector.js'
import { Metrics } from '../../services/projector/src/consume/metrics.js'
import { ClickHouseWriter } from '../../services/projector/src/clickhouse/writer.js'
import type { ProjectionBatch } from '../../services/projector/src/consume/batcher.js'
import { createTestDatabase, makeEvent, queryRows } from '../support/clickhouse-helpers.js'
import { startTcpGate } from '../support/tcp-gate.js'

const REGISTRY_URL = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:18081/apis/ccompat/v7'
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123'
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',')
const log = createLogger((process.env.TEST_LOG_LEVEL as any) ?? 'error', { test: 'resilience' })
// Connection failures are the point here; the client's own error log would only repeat them.
const createClient = (o: { url: string; request_timeout?: number }) =>
  createClickHouseClient({ ...o, log: { level: ClickHouseLogLevel.OFF } })
const hostPort = (url: string) => {
  const u = new URL(url)
  return { host: u.hostname, port: Number(u.port) }
}

interface Fixture {
  kafka: Kafka
  producer: Producer
  topics: { events: string; identifies: string; dlq: string; accounts: string }
  groupId: string
  /** Encodes with ids registered on the real registry (what ingest writes). */
  writerCodec: Codec
  database: string
  count(): Promise<number>
  produce(n: number): Promise<string[]>
  committed(): Promise<bigint>
  ends(): Promise<bigint>
}

async function fixture(t: Test): Promise<Fixture> {
  const suffix = randomBytes(5).toString('hex')
  const topics = {
    events: `test.${suffix}.events`,
    identifies: `test.${suffix}.identifies`,
    accounts: `test.${suffix}.accounts`,
    dlq: `test.${suffix}.dlq`,
  }
  const kafka = createKafka({ brokers: BROKERS, clientId: `test-resilience-${suffix}` }, log)
  const admin = kafka.admin()
  await admin.connect()
  await ensureTopics(admin, topics, { partitions: 3, replicationFactor: 1, minInsyncReplicas: 1 })
  const producer = createProducer(kafka, { idempotent: true })
  await producer.connect()
  const writerCodec = new Codec(createRegistry(REGISTRY_URL))
  await writerCodec.register(topics)
  const db = await createTestDatabase({ prefix: 'resilience', t })
  const groupId = `projector-${suffix}`
  t.teardown(async () => {
    await producer.disconnect()
    await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined)
    await admin.disconnect()
  })
  const sumOffsets = (ps: Array<{ offset: string }>) =>
    ps.reduce((s, p) => s + (BigInt(p.offset) > 0n ? BigInt(p.offset) : 0n), 0n)
  return {
    kafka,
    producer,
    topics,
    groupId,
    writerCodec,
    database: db.database,
    count: async () =>
      Number((await queryRows<{ n: string }>(db.client, `SELECT count() AS n FROM ${db.database}.events FINAL`))[0]!.n),
    async produce(n) {
      const events = Array.from({ length: n }, (_, i) => makeEvent({ event_id: randomUUID(), user_id: `u${i}` }))
      await producer.send({
        topic: topics.events,
        acks: -1,
        messages: events.map((e) => ({ key: e.user_id, value: writerCodec.encode('Event', e) })),
      })
      return events.map((e) => e.event_id)
    },
    async committed() {
      const [r] = await admin.fetchOffsets({ groupId, topics: [topics.events] })
      return sumOffsets(r!.partitions)
    },
    async ends() {
      return sumOffsets((await admin.fetchTopicOffsets(topics.events)).map((p) => ({ offset: p.high })))
    },
  }
}

function projectorOptions(f: Fixture, over: Partial<ProjectorOptions> = {}): ProjectorOptions {
  return {
    groupId: f.groupId,
    topics: f.topics,
    maxRows: 1000,
    maxWaitMs: 50,
    retries: 1000,
    fromBeginning: true,
    initialRetryMs: 50,
    maxRetryMs: 300,
    ...over,
  }
}

t.test('a registry that does not answer is waited out: records are projected, none dead-lettered', async (t) => {
  const f = await fixture(t)
  const gate = await startTcpGate(hostPort(REGISTRY_URL))
  t.teardown(() => gate.stop())
  const ch = createClient({ url: CLICKHOUSE_URL })
  t.teardown(() => ch.close())
  // A fresh codec knows no writer schema: it must ask the registry, which is behind the closed gate.
  const codec = new Codec(createRegistry(gate.url(new URL(REGISTRY_URL).pathname)))
  const metrics = new Metrics()
  const projector = new Projector(
    f.kafka,
    f.producer,
    codec,
    new ClickHouseWriter(ch, f.database),
    projectorOptions(f),
    metrics,
    log,
  )
  t.teardown(() => projector.stop())
  const ids = await f.produce(20)
  await projector.start()
  await waitUntil(() => gate.refused >= 5, 60_000, 'the projector to try the registry a few times')
  t.equal(
    (await metrics.render()).match(/^projector_dlq_records_total (\d+)$/m)![1],
    '0',
    'nothing dead-lettered while the registry is down',
  )
  gate.open()
  await waitUntil(async () => (await f.count()) >= ids.length, 60_000, 'every event in ClickHouse')
  t.equal(await f.count(), ids.length)
  t.equal((await metrics.render()).match(/^projector_dlq_records_total (\d+)$/m)![1], '0', 'nothing dead-lettered')
})

t.test('a ClickHouse outage longer than the session does not get the member evicted', async (t) => {
  const f = await fixture(t)
  const gate = await startTcpGate(hostPort(CLICKHOUSE_URL))
  t.teardown(() => gate.stop())
  const ch = createClient({ url: gate.url(), request_timeout: 5_000 })
  t.teardown(() => ch.close())
  const codec = new Codec(createRegistry(REGISTRY_URL))
  const metrics = new Metrics()
  // The broker's smallest allowed session (group.min.session.timeout.ms defaults to 6 s).
  const sessionTimeoutMs = 6_000
  const projector = new Projector(
    f.kafka,
    f.producer,
    codec,
    new ClickHouseWriter(ch, f.database),
    projectorOptions(f, { sessionTimeoutMs, heartbeatIntervalMs: 500 }),
    metrics,
    log,
  )
  t.teardown(() => projector.stop())
  const ids = await f.produce(30)
  await projector.start()
  const closedAt = Date.now()
  // Keep ClickHouse away for well over two sessions, and until inserts have been refused many times.
  await waitUntil(
    () => gate.refused >= 10 && Date.now() - closedAt > 2.5 * sessionTimeoutMs,
    120_000,
    'a long ClickHouse outage',
  )
  gate.open()
  await waitUntil(async () => (await f.count()) >= ids.length, 60_000, 'every event in ClickHouse')
  await waitUntil(async () => (await f.committed()) === (await f.ends()), 60_000, 'the offsets to be committed')
  t.equal(await f.count(), ids.length, 'each event once')
  t.equal(metrics.groupJoins, 1, 'the member joined once: no eviction, no rebalance')
})

t.test('stop() drains: the batch being written when it is called is written and committed', async (t) => {
  const f = await fixture(t)
  const ch = createClient({ url: CLICKHOUSE_URL })
  t.teardown(() => ch.close())
  const writer = new ClickHouseWriter(ch, f.database)
  let entered!: () => void
  const writing = new Promise<void>((r) => (entered = r))
  let release!: () => void
  const released = new Promise<void>((r) => (release = r))
  // The first insert waits until the test has called stop(), so records are in flight then.
  const sink = {
    async writePrepared(b: ProjectionBatch) {
      entered()
      await released
      return writer.writePrepared(b)
    },
  }
  const codec = new Codec(createRegistry(REGISTRY_URL))
  const ids = await f.produce(40)
  const first = new Projector(f.kafka, f.producer, codec, sink, projectorOptions(f), new Metrics(), log)
  await first.start()
  await writing
  const stopped = first.stop()
  release()
  await stopped
  const written = await f.count()
  t.ok(written > 0, 'the batch in flight was written')
  const committed = await f.committed()
  t.equal(committed, BigInt(written), 'what was written is committed, and only that')

  // The next member reads the rest; nothing is lost or shown twice.
  const second = new Projector(f.kafka, f.producer, codec, writer, projectorOptions(f), new Metrics(), log)
  t.teardown(() => second.stop())
  await second.start()
  await waitUntil(async () => (await f.count()) >= ids.length, 60_000, 'every event in ClickHouse')
  t.equal(await f.count(), ids.length)
  const raw = await queryRows<{ n: string }>(ch, `SELECT count() AS n FROM ${f.database}.events`)
  t.equal(Number(raw[0]!.n), ids.length, 'no record was written twice')
})

// The projector fetches on while an insert runs, so rows fetched after a failed write may be
// written before the failed rows are. Committing them would skip the failed rows for good.
t.test(
  'a write that fails after its retries: later writes are not committed past it, and every event lands once',
  async (t) => {
    const f = await fixture(t)
    const ch = createClient({ url: CLICKHOUSE_URL })
    t.teardown(() => ch.close())
    const writer = new ClickHouseWriter(ch, f.database)
    let calls = 0
    let failing = false
    let failures = 0
    const sink = {
      async writePrepared(b: ProjectionBatch) {
        calls++
        // Retriable, but not ClickHouse being away: the pipeline gives up after its retries.
        if (failing) {
          failures++
          throw Object.assign(new Error('too many parts (test)'), { retriable: true })
        }
        return writer.writePrepared(b)
      },
    }
    const codec = new Codec(createRegistry(REGISTRY_URL))
    const metrics = new Metrics()
    const projector = new Projector(
      f.kafka,
      f.producer,
      codec,
      sink,
      projectorOptions(f, { maxRows: 20, maxWaitMs: 20, retries: 2, initialRetryMs: 200, maxRetryMs: 200 }),
      metrics,
      log,
    )
    t.teardown(() => projector.stop())
    const ids = await f.produce(30)
    await projector.start()
    await waitUntil(
      async () => (await f.count()) >= ids.length && (await f.committed()) === (await f.ends()),
      60_000,
      'the first events written and committed',
    )
    // The next write fails three times (its attempt and two retries) while more records arrive behind it.
    failing = true
    ids.push(...(await f.produce(30)))
    await waitUntil(() => failures >= 1, 30_000, 'a write to fail')
    ids.push(...(await f.produce(30)))
    const committedAtFailure = await f.committed()
    await waitUntil(() => failures >= 3, 30_000, 'the retries to be spent')
    failing = false
    await waitUntil(async () => (await f.count()) >= ids.length, 60_000, 'every event in ClickHouse')
    await waitUntil(async () => (await f.committed()) === (await f.ends()), 60_000, 'the offsets to be committed')
    t.equal(await f.count(), ids.length, 'every event once (FINAL)')
    const stored = await queryRows<{ id: string }>(
      ch,
      `SELECT DISTINCT toString(event_id) AS id FROM ${f.database}.events`,
    )
    t.same(new Set(stored.map((r) => r.id)), new Set(ids), 'exactly the produced events')
    t.ok(committedAtFailure >= 30n, 'the first events stayed committed')
    t.ok(metrics.groupJoins >= 2, 'the member joined again to read from the committed offsets')
    t.ok(calls > 3, 'the projector wrote on after the failure')
  },
)

t.test('a partition whose last records are transaction markers is committed to its end', async (t) => {
  const f = await fixture(t)
  const ch = createClient({ url: CLICKHOUSE_URL })
  t.teardown(() => ch.close())
  const codec = new Codec(createRegistry(REGISTRY_URL))
  const txp = createProducer(f.kafka, {
    transactionalId: `test-markers-${randomBytes(4).toString('hex')}`,
    maxInFlightRequests: 1,
    idempotent: true,
  })
  await txp.connect()
  t.teardown(() => txp.disconnect())
  const inTxn = async (commit: boolean, n: number) => {
    const events = Array.from({ length: n }, (_, i) => makeEvent({ event_id: randomUUID(), user_id: `t${i}` }))
    const txn = await txp.transaction()
    await txn.send({
      topic: f.topics.events,
      acks: -1,
      messages: events.map((e) => ({ key: e.user_id, value: f.writerCodec.encode('Event', e) })),
    })
    if (commit) await txn.commit()
    else await txn.abort()
    return events.map((e) => e.event_id)
  }
  const ids = await f.produce(20)
  ids.push(...(await inTxn(true, 12)))
  const projector = new Projector(
    f.kafka,
    f.producer,
    codec,
    new ClickHouseWriter(ch, f.database),
    projectorOptions(f),
    new Metrics(),
    log,
  )
  t.teardown(() => projector.stop())
  await projector.start()
  await waitUntil(async () => (await f.count()) >= ids.length, 60_000, 'the committed events in ClickHouse')
  await waitUntil(async () => (await f.committed()) === (await f.ends()), 60_000, 'the offsets committed to the end')
  // Then every partition gets an aborted transaction, fetched on its own: records the consumer
  // never sees, and the abort marker. Nothing to write, and still the end to commit.
  await inTxn(false, 12)
  await waitUntil(
    async () => (await f.committed()) === (await f.ends()),
    60_000,
    'the offsets committed to the end, past the aborted records and markers',
  )
  t.equal(await f.count(), ids.length, 'the plain and committed events, not the aborted ones')
})
