// bench/HISTORY.md: a replay of partitions that need many fetches reads every record exactly once and
// ends, also when a partition's last offsets are transaction markers or aborted records (the
// ingest writes requests that span partitions in Kafka transactions). Records are produced
// straight to Kafka in many small sends, so each partition holds many record batches, and the
// replay fetches a few KB per partition at a time.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import type { Producer } from '../../services/shared/src/kafka/client.js'
import { startServices, waitUntil, type TestServices } from '../support/harness.js'
import { openEventLog } from '../../services/shared/src/event-log.js'
import { loadProjectorConfig } from '../../services/projector/src/config.js'
import { createLogger } from '../../services/shared/src/log.js'
import { runReplayCommand, type ReplayCommand } from '../../services/projector/src/replay/index.js'
import { makeEvent } from '../support/clickhouse-helpers.js'
import type { Codec } from '../../schemas/codec.js'

const FETCH_BYTES = '4096'
const log = createLogger('error')

async function openLog(s: TestServices) {
  const cfg = loadProjectorConfig({ ...s.env, REPLAY_FETCH_PARTITION_BYTES: FETCH_BYTES })
  const { kafka, codec } = await openEventLog(cfg, 'test-producer', log)
  return { cfg, kafka, codec }
}

/** `sends` sends of `perSend` events of one account; each send is one record batch per partition.
 *  `lastBatch`, when given, receives each partition's offset of the last batch written. */
async function produce(
  producer: Producer,
  codec: Codec,
  topic: string,
  accountId: string,
  sends: number,
  perSend: number,
  tag: string,
  lastBatch?: Map<number, bigint>,
) {
  let n = 0
  for (let i = 0; i < sends; i++) {
    const messages = Array.from({ length: perSend }, (_, j) => {
      const user = `u${(i * perSend + j) % 50}`
      const e = makeEvent({
        account_id: accountId,
        user_id: user,
        event: tag,
        message_id: `${tag}-${i}-${j}`,
        timestamp: Date.UTC(2025, 0, 1) + (i * perSend + j) * 1000,
        properties: JSON.stringify({ i, j, pad: 'x'.repeat(200) }),
      })
      n++
      return { key: `${accountId}:${user}`, value: codec.encode('Event', e) }
    })
    const written = await producer.send({ topic, acks: -1, messages })
    for (const m of written) if (m.baseOffset !== undefined) lastBatch?.set(m.partition, BigInt(m.baseOffset))
  }
  return n
}

async function counts(s: TestServices, db: string, accountId: string) {
  const [final] = await s.query<{ n: string; ids: string }>(
    `SELECT count() AS n, uniqExact(event_id) AS ids FROM ${db}.events FINAL WHERE account_id = '${accountId}'`,
  )
  const [raw] = await s.query<{ n: string }>(`SELECT count() AS n FROM ${db}.events WHERE account_id = '${accountId}'`)
  return { final: Number(final!.n), ids: Number(final!.ids), raw: Number(raw!.n) }
}

async function partitionsWithManyBatches(s: TestServices, topic: string) {
  const a = s.kafka.admin()
  await a.connect()
  try {
    return await a.fetchTopicOffsets(topic)
  } finally {
    await a.disconnect()
  }
}

t.test('a replay whose partitions need many fetches writes every record once and ends', async (t) => {
  const s = await startServices(t, { ingest: false, projector: false })
  const { cfg, kafka, codec } = await openLog(s)
  const producer = kafka.producer({ idempotent: true })
  await producer.connect()
  t.teardown(() => producer.disconnect())
  const accountId = `acct_${randomBytes(4).toString('hex')}`
  const produced = await produce(producer, codec, s.topics.events, accountId, 150, 20, 'fetched')
  const marks = await partitionsWithManyBatches(s, s.topics.events)
  t.ok(
    marks.every((m) => Number(m.high) > 300),
    'every partition holds far more than one 4 KB fetch',
  )

  const fresh = `${s.database}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const cmd: ReplayCommand = {
    topics: ['events'],
    from: { kind: 'beginning' },
    target: 'fresh',
    database: fresh,
    swap: false,
    dlq: true,
    json: false,
  }
  const report = await runReplayCommand(cfg, cmd, { log })
  t.equal(report.summary.records, produced, 'read every record once')
  t.equal(report.summary.events, produced)
  t.equal(report.summary.deadLettered, 0)
  t.same(
    await counts(s, fresh, accountId),
    { final: produced, ids: produced, raw: produced },
    'each record written exactly once',
  )
  for (const m of marks)
    t.equal(
      report.summary.ends[`${s.topics.events}/${m.partition}`],
      m.high,
      `partition ${m.partition} read to its end`,
    )

  // Into the live tables, twice: exact counts are those of the log (A5).
  const live: ReplayCommand = { ...cmd, target: 'live', database: undefined }
  for (const round of [1, 2]) {
    const r = await runReplayCommand(cfg, live, { log })
    t.equal(r.summary.records, produced, `live replay ${round} read every record once`)
    const c = await counts(s, s.database, accountId)
    t.same([c.final, c.ids], [produced, produced], `exact counts after live replay ${round}`)
  }
})

t.test('a replay ends when the last offsets of a partition are transaction markers and aborted records', async (t) => {
  const s = await startServices(t, { ingest: false, projector: false })
  const { cfg, kafka, codec } = await openLog(s)
  const plain = kafka.producer({ idempotent: true })
  const txn = kafka.producer({ idempotent: true, maxInFlightRequests: 1, transactionalId: `test-replay-${s.suffix}` })
  await plain.connect()
  await txn.connect()
  t.teardown(async () => {
    await plain.disconnect()
    await txn.disconnect()
  })
  const accountId = `acct_${randomBytes(4).toString('hex')}`
  let expected = await produce(plain, codec, s.topics.events, accountId, 20, 20, 'plain')

  // A committed transaction, then an aborted one, each with records in every partition (users
  // spread over all partitions) and larger than one fetch, so the aborted records and the
  // markers come back in fetches of their own.
  const committed = await txn.transaction()
  expected += await produce(committed as unknown as Producer, codec, s.topics.events, accountId, 3, 40, 'committed')
  await committed.commit()
  const aborted = await txn.transaction()
  const abortedBatches = new Map<number, bigint>()
  await produce(aborted as unknown as Producer, codec, s.topics.events, accountId, 3, 40, 'aborted', abortedBatches)
  await aborted.abort()
  // abort() returns once the coordinator has the decision; it writes the markers afterwards. Until
  // then the offsets kafkajs lists (read_committed: the last stable offset) stop before the aborted
  // records, and the replay, which starts later, would end past them (CI once saw exactly that).
  await waitUntil(
    async () => {
      const o = await partitionsWithManyBatches(s, s.topics.events)
      return [...abortedBatches].every(([p, base]) => BigInt(o.find((x) => x.partition === p)!.high) > base)
    },
    30_000,
    'the abort markers to be written',
  )

  const fresh = `${s.database}_fresh`
  t.teardown(() => s.ch.command({ query: `DROP DATABASE IF EXISTS ${fresh}` }))
  const marks = await partitionsWithManyBatches(s, s.topics.events)
  const report = await runReplayCommand(
    cfg,
    {
      topics: ['events'],
      from: { kind: 'beginning' },
      target: 'fresh',
      database: fresh,
      swap: false,
      dlq: true,
      json: false,
    },
    { log },
  )
  t.equal(report.summary.records, expected, 'read the plain and committed records, not the aborted ones')
  t.same(await counts(s, fresh, accountId), { final: expected, ids: expected, raw: expected })
  const [byTag] = await s.query<{ aborted: string; committed: string }>(
    `SELECT countIf(event = 'aborted') AS aborted, countIf(event = 'committed') AS committed FROM ${fresh}.events WHERE account_id = '${accountId}'`,
  )
  t.same(byTag, { aborted: '0', committed: '120' })
  for (const m of marks)
    t.equal(
      report.summary.ends[`${s.topics.events}/${m.partition}`],
      m.high,
      `partition ${m.partition} read past its last marker`,
    )
})
