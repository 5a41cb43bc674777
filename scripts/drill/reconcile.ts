// Reading back what was stored: every event_id on the events topic (from the start, read_committed,
// decoded with the project's codec) and every event_id in ClickHouse's `events FINAL`, after the
// projector has caught up with the topic.
import type { Kafka } from '../../services/shared/src/kafka/client.js'
import type { ClickHouseClient } from '@clickhouse/client'
import type { Codec } from '../../schemas/codec.js'
import type { SealedFields } from '../../schemas/records.js'

/** Reads `topic` from the beginning to the high watermark each partition had when the read began. For each
 *  record whose event id is in `watch` (an erased person's), `sealedBy` gets the id of the data key its
 *  personal fields are sealed with (A15), or null when they are in clear. */
export async function readTopicEventIds(
  kafka: Kafka,
  codec: Codec,
  topic: string,
  groupId: string,
  timeoutMs: number,
  watch: ReadonlySet<string> = new Set(),
): Promise<{
  ids: Map<string, number>
  sealedBy: Map<string, string | null>
  complete: boolean
  records: number
  undecodable: number
}> {
  const admin = kafka.admin()
  await admin.connect()
  const target = new Map<number, bigint>()
  try {
    for (const p of await admin.fetchTopicOffsets(topic))
      if (BigInt(p.high) > BigInt(p.low)) target.set(p.partition, BigInt(p.high))
  } finally {
    await admin.disconnect()
  }
  const ids = new Map<string, number>()
  const sealedBy = new Map<string, string | null>()
  let records = 0
  let undecodable = 0
  if (target.size === 0) return { ids, sealedBy, complete: true, records, undecodable }

  // kafkajs reads committed records only unless told otherwise (readUncommitted: false).
  const consumer = kafka.consumer({ groupId, readUncommitted: false, maxBytesPerPartition: 4 * 1024 * 1024 })
  const reached = new Set<number>()
  let done!: () => void
  const allReached = new Promise<void>((r) => (done = r))
  // Batches of only control records (transaction markers) never reach eachBatch; their end event
  // still carries the last offset, so progress is tracked from it.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const want = target.get(payload.partition)
    if (want !== undefined && BigInt(payload.lastOffset) + 1n >= want) reached.add(payload.partition)
    if (reached.size === target.size) done()
  })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        records++
        try {
          const { value } = await codec.decode(m.value!)
          const id = String(value.event_id)
          ids.set(id, (ids.get(id) ?? 0) + 1)
          if (watch.has(id)) sealedBy.set(id, (value.enc as SealedFields | null | undefined)?.key_id ?? null)
        } catch {
          undecodable++
        }
      }
    },
  })
  let timer: NodeJS.Timeout | undefined
  const complete = await Promise.race([
    allReached.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
  ])
  clearTimeout(timer)
  await consumer.disconnect()
  return { ids, sealedBy, complete, records, undecodable }
}

async function rows<T>(ch: ClickHouseClient, query: string): Promise<T[]> {
  return (await ch.query({ query, format: 'JSONEachRow' })).json<T>()
}

/** Waits until ClickHouse holds `expected` distinct event_ids, or the count has not moved for
 * `settleMs`, or `timeoutMs` has passed. ClickHouse being briefly unreachable only delays the wait. */
export async function waitForProjection(
  ch: ClickHouseClient,
  db: string,
  expected: number,
  o: { settleMs: number; timeoutMs: number; progress?: (n: number) => void },
): Promise<{ caughtUp: boolean; distinct: number; waitedMs: number }> {
  const t0 = Date.now()
  let last = -1
  let lastChange = Date.now()
  let distinct = 0
  while (true) {
    try {
      distinct = Number((await rows<{ n: string }>(ch, `SELECT uniqExact(event_id) AS n FROM ${db}.events`))[0]?.n ?? 0)
    } catch {
      // ClickHouse still restarting: keep waiting within the bounds
    }
    if (distinct >= expected) return { caughtUp: true, distinct, waitedMs: Date.now() - t0 }
    if (distinct !== last) {
      last = distinct
      lastChange = Date.now()
      o.progress?.(distinct)
    }
    if (Date.now() - lastChange > o.settleMs || Date.now() - t0 > o.timeoutMs)
      return { caughtUp: false, distinct, waitedMs: Date.now() - t0 }
    await new Promise((r) => setTimeout(r, 1000))
  }
}

export async function clickhouseEventIds(ch: ClickHouseClient, db: string): Promise<Set<string>> {
  return new Set(
    (await rows<{ event_id: string }>(ch, `SELECT event_id FROM ${db}.events FINAL`)).map((r) => r.event_id),
  )
}

/** "Duplicated" means what a reader of `FINAL` would see twice: an event_id with more than one row
 * after FINAL collapses rows that share the whole sort key (a replay of the same record). */
export async function clickhouseDuplicates(ch: ClickHouseClient, db: string): Promise<Map<string, number>> {
  const r = await rows<{ event_id: string; c: string }>(
    ch,
    `SELECT event_id, count() AS c FROM ${db}.events FINAL GROUP BY event_id HAVING c > 1`,
  )
  return new Map(r.map((x) => [x.event_id, Number(x.c)]))
}
