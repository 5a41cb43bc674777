// Reads planned offset ranges with a standalone consumer and writes them through the projector's
// write path (decode, ClickHouse with retry, DLQ). It never touches the live consumer group: it
// joins a throwaway group (random id, no offsets committed, deleted at the end), seeks each
// partition to its start, pauses partitions that are done or not planned, and stops once every
// partition reached the end offset captured when the replay began.
import { randomBytes } from 'node:crypto'
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../../../shared/src/log.js'
import { InsertBatcher, type ProjectionBatch } from '../consume/batcher.js'
import { ProjectionPipeline, type ProjectionSink } from '../consume/projection.js'
import { rangeKey, totalRecords, type PartitionRange } from './plan.js'
import type { ReplayProgress, ReplaySummary } from './progress.js'

export interface ReplayDeps {
  kafka: Kafka
  producer: Producer
  codec: Codec
  sink: ProjectionSink
  log: Logger
}

export interface ReplayOptions {
  ranges: PartitionRange[]
  dlqTopic: string
  /** Send undecodable and unwritable records to the DLQ (default); false only counts them. */
  dlq?: boolean
  retries: number
  maxRows: number
  maxWaitMs: number
  /** Bytes per partition in one Kafka fetch. */
  fetchPartitionBytes: number
  /** Called every `progressEveryMs` (default 1000) while the replay runs. */
  onProgress?: (p: ReplayProgress) => void
  progressEveryMs?: number
}

interface Cursor {
  range: PartitionRange
  /** Next offset to read. */
  pos: bigint
}

export async function replay(deps: ReplayDeps, o: ReplayOptions): Promise<ReplaySummary> {
  const started = Date.now()
  const cursors = new Map<string, Cursor>(o.ranges.map((r) => [rangeKey(r.topic, r.partition), { range: r, pos: r.start }]))
  const summary: ReplaySummary = { records: 0, byTopic: {}, events: 0, identifies: 0, deadLettered: 0, durationMs: 0, rate: 0, ends: {} }
  for (const r of o.ranges) summary.byTopic[r.topic] ??= 0
  const finish = () => {
    summary.durationMs = Date.now() - started
    summary.rate = summary.durationMs > 0 ? (summary.records * 1000) / summary.durationMs : 0
    for (const [k, c] of cursors) summary.ends[k] = c.pos.toString()
    return summary
  }
  const remaining = () => {
    let n = 0n
    for (const c of cursors.values()) n += c.range.end > c.pos ? c.range.end - c.pos : 0n
    return Number(n)
  }
  if (totalRecords(o.ranges) === 0) return finish()

  const stopping = { aborted: false }
  const pipeline = new ProjectionPipeline(
    deps.producer,
    deps.codec,
    deps.sink,
    { dlqTopic: o.dlqTopic, retries: o.retries },
    undefined,
    deps.log,
    stopping,
  )
  const batcher = new InsertBatcher(async (b: ProjectionBatch) => {
    const { written } = await pipeline.write(b)
    summary.events += written.events.length
    summary.identifies += written.identifies.length
    summary.deadLettered += b.events.length + b.identifies.length - written.events.length - written.identifies.length
  }, { maxRows: o.maxRows, maxWaitMs: o.maxWaitMs })

  let resolveDone!: () => void
  let rejectDone!: (err: unknown) => void
  const done = new Promise<void>((res, rej) => {
    resolveDone = res
    rejectDone = rej
  })
  const checkDone = () => {
    if (remaining() === 0) resolveDone()
  }

  const groupId = `replay-${Date.now()}-${randomBytes(4).toString('hex')}`
  const consumer: Consumer = deps.kafka.consumer({
    groupId,
    maxWaitTimeInMs: 200,
    sessionTimeout: 30_000,
    heartbeatInterval: 3_000,
    maxBytesPerPartition: o.fetchPartitionBytes,
    allowAutoTopicCreation: false,
  })
  const pauseOne = (topic: string, partition: number) => consumer.pause([{ topic, partitions: [partition] }])

  const eachBatch = async ({ batch, heartbeat }: EachBatchPayload) => {
    const c = cursors.get(rangeKey(batch.topic, batch.partition))
    if (!c || c.pos >= c.range.end) return
    const messages = batch.messages.filter((m) => {
      const off = BigInt(m.offset)
      return off >= c.pos && off < c.range.end
    })
    if (messages.length > 0) {
      const { part, dead } = await pipeline.decode(batch.topic, batch.partition, messages)
      if (dead.length) {
        if (o.dlq !== false) await pipeline.sendToDlq(dead)
        summary.deadLettered += dead.length
      }
      await batcher.add(part)
      summary.records += messages.length
      summary.byTopic[batch.topic] = (summary.byTopic[batch.topic] ?? 0) + messages.length
    }
    // lastOffset() counts control records (transaction markers) too, so a partition whose last
    // offsets are markers still reaches its end.
    // (isEmptyIncludingFiltered exists on kafkajs' Batch but is missing from its types.)
    const emptyIncludingMarkers = (batch as unknown as { isEmptyIncludingFiltered(): boolean }).isEmptyIncludingFiltered()
    const next = emptyIncludingMarkers ? c.pos : BigInt(batch.lastOffset()) + 1n
    c.pos = next > c.range.end ? c.range.end : next > c.pos ? next : c.pos
    if (c.pos >= c.range.end) {
      pauseOne(batch.topic, batch.partition)
      checkDone()
    }
    await heartbeat()
  }

  const topics = [...new Set(o.ranges.map((r) => r.topic))]
  let lastDone = 0
  let lastAt = started
  const timer = setInterval(() => {
    const now = Date.now()
    const rate = ((summary.records - lastDone) * 1000) / Math.max(1, now - lastAt)
    lastDone = summary.records
    lastAt = now
    o.onProgress?.({ done: summary.records, remaining: remaining(), elapsedMs: now - started, rate })
  }, o.progressEveryMs ?? 1000)

  try {
    await consumer.connect()
    consumer.on(consumer.events.CRASH, (e: any) => rejectDone(e?.payload?.error ?? new Error('replay consumer crashed')))
    await consumer.subscribe({ topics, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 16,
      eachBatch: (p) => eachBatch(p).catch((err) => {
        rejectDone(err)
        throw err
      }),
    })
    for (const c of cursors.values()) {
      if (c.pos < c.range.end) consumer.seek({ topic: c.range.topic, partition: c.range.partition, offset: c.pos.toString() })
      else pauseOne(c.range.topic, c.range.partition)
    }
    checkDone()
    await done
    await batcher.flush()
  } finally {
    clearInterval(timer)
    await consumer.disconnect().catch(() => undefined)
    const admin = deps.kafka.admin()
    await admin
      .connect()
      .then(() => admin.deleteGroups([groupId]))
      .catch((err) => deps.log.debug('could not delete the replay group', { groupId, err }))
      .finally(() => admin.disconnect())
  }
  o.onProgress?.({ done: summary.records, remaining: remaining(), elapsedMs: Date.now() - started, rate: 0 })
  return finish()
}
