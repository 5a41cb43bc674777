// Reads planned offset ranges with a standalone consumer and writes them through the projector's
// write path (decode, ClickHouse with retry, DLQ). It never touches the live consumer group: it
// joins a throwaway group (random id, no offsets committed, deleted at the end), seeks each
// partition to its start, pauses partitions that are done or not planned, and stops once every
// partition reached the end offset captured when the replay began.
//
// Fetch positions: with eachBatchAutoResolve off, kafkajs fetches a partition again from its last
// resolved offset, so each batch's last offset is resolved once its records are handed to the
// insert buffer (bench/HISTORY.md: without it a partition larger than one fetch re-read its first fetch
// forever). A fetch that holds only transaction markers or aborted records never reaches
// eachBatch (kafkajs resolves it itself), so the replay follows END_BATCH_PROCESS too, or a
// partition whose log ends in markers would never count as done.
//
// Reading and writing overlap: a batch's records go to the insert buffer and the next fetch starts
// while ClickHouse takes the insert; fetching waits only when more than two inserts' worth of rows
// are not written yet. Nothing is committed to Kafka, so this needs no ordering beyond the
// buffer's own (flushes run one at a time, in order) and the final flush before returning.
import { randomBytes } from 'node:crypto'
import type {
  Consumer,
  ConsumerEndBatchProcessEvent,
  EachBatchPayload,
  Kafka,
  Producer,
} from '../../../shared/src/kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../../../shared/src/log.js'
import { InsertBatcher, type ProjectionBatch } from '../consume/batcher.js'
import { batchRows } from '../consume/record-rows.js'
import {
  ProjectionPipeline,
  type ErasureFilter,
  type PipelineMetrics,
  type ProjectionSink,
} from '../consume/projection.js'
import { rangeKey, totalRecords, type PartitionRange } from './plan.js'
import { progressOf, trimSamples, type ProgressSample, type ReplayProgress, type ReplaySummary } from './progress.js'

export interface ReplayDeps {
  kafka: Kafka
  producer: Producer
  codec: Codec
  sink: ProjectionSink
  log: Logger
  /** Rows inserted, insert latency and dead letters, as the live projector counts them. */
  metrics?: PipelineMetrics
  /** A12: records of erased people are not replayed (their events still count, usage-stubs.ts). */
  erasures?: ErasureFilter
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
  const cursors = new Map<string, Cursor>(
    o.ranges.map((r) => [rangeKey(r.topic, r.partition), { range: r, pos: r.start }]),
  )
  const summary: ReplaySummary = {
    records: 0,
    byTopic: {},
    events: 0,
    identifies: 0,
    deadLettered: 0,
    durationMs: 0,
    rate: 0,
    ends: {},
  }
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
    { dlqTopic: o.dlqTopic, retries: o.retries, erasures: deps.erasures },
    deps.metrics,
    deps.log,
    stopping,
  )
  const batcher = new InsertBatcher(
    async (b: ProjectionBatch) => {
      const { written } = await pipeline.write(b)
      summary.events += written.events.length
      summary.identifies += written.identifies.length
      summary.deadLettered += b.events.length + b.identifies.length - written.events.length - written.identifies.length
    },
    { maxRows: o.maxRows, maxWaitMs: o.maxWaitMs },
  )

  let resolveDone!: () => void
  let rejectDone!: (err: unknown) => void
  const done = new Promise<void>((res, rej) => {
    resolveDone = res
    rejectDone = rej
  })
  const checkDone = () => {
    if (remaining() === 0) resolveDone()
  }

  // Rows handed to the buffer and not yet written, oldest first (flushes settle in this order).
  const unwritten: Array<{ rows: number; written: Promise<void> }> = []
  let unwrittenRows = 0
  const track = (rows: number, written: Promise<void>) => {
    const entry = { rows, written }
    unwritten.push(entry)
    unwrittenRows += rows
    written.then(
      () => {
        unwrittenRows -= rows
        unwritten.splice(unwritten.indexOf(entry), 1)
      },
      (err) => rejectDone(err),
    )
  }
  const backpressure = async () => {
    while (unwrittenRows > 2 * o.maxRows && unwritten.length > 0) await unwritten[0]!.written
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

  /** Moves a partition's cursor past `lastOffset` (a record or a marker), never backwards or past its end. */
  const advance = (c: Cursor, lastOffset: string) => {
    const next = BigInt(lastOffset) + 1n
    if (next > c.pos) c.pos = next > c.range.end ? c.range.end : next
    if (c.pos >= c.range.end) {
      pauseOne(c.range.topic, c.range.partition)
      checkDone()
    }
  }

  const eachBatch = async ({ batch, resolveOffset, heartbeat }: EachBatchPayload) => {
    const c = cursors.get(rangeKey(batch.topic, batch.partition))
    if (!c || c.pos >= c.range.end) return
    const messages = batch.messages.filter((m) => {
      const off = BigInt(m.offset)
      return off >= c.pos && off < c.range.end
    })
    // About maxRows rows (all tables, H40) at a time, each slice waiting for room before the next.
    for (let rest = messages; rest.length > 0; ) {
      const { part, dead, taken } = await pipeline.decode(batch.topic, batch.partition, rest, o.maxRows)
      if (dead.length) {
        if (o.dlq !== false) await pipeline.sendToDlq(dead)
        summary.deadLettered += dead.length
      }
      track(batchRows(part), batcher.add(part))
      summary.records += taken
      summary.byTopic[batch.topic] = (summary.byTopic[batch.topic] ?? 0) + taken
      rest = rest.slice(taken)
      if (rest.length > 0) await backpressure()
    }
    // lastOffset() counts the transaction markers fetched with the records.
    advance(c, batch.lastOffset())
    resolveOffset(batch.lastOffset())
    await backpressure()
    await heartbeat()
  }

  const topics = [...new Set(o.ranges.map((r) => r.topic))]
  const samples: ProgressSample[] = [{ atMs: started, done: 0, remaining: remaining() }]
  // Done means in ClickHouse or in the DLQ, so the rate is the write rate, not how far reading ran ahead.
  const sample = () => {
    samples.push({
      atMs: Date.now(),
      done: summary.events + summary.identifies + summary.deadLettered,
      remaining: remaining(),
    })
    trimSamples(samples)
    return progressOf(samples)
  }
  const timer = setInterval(() => o.onProgress?.(sample()), o.progressEveryMs ?? 1000)

  try {
    await consumer.connect()
    consumer.on(consumer.events.CRASH, (e: any) =>
      rejectDone(e?.payload?.error ?? new Error('replay consumer crashed')),
    )
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload: p }: ConsumerEndBatchProcessEvent) => {
      // Fetches of markers or aborted records only: eachBatch never saw them.
      const c = cursors.get(rangeKey(p.topic, p.partition))
      if (p.batchSize === 0 && c && c.pos < c.range.end) advance(c, p.lastOffset)
    })
    await consumer.subscribe({ topics, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 16,
      eachBatch: (p) =>
        eachBatch(p).catch((err) => {
          rejectDone(err)
          throw err
        }),
    })
    for (const c of cursors.values()) {
      if (c.pos < c.range.end)
        consumer.seek({ topic: c.range.topic, partition: c.range.partition, offset: c.pos.toString() })
      else pauseOne(c.range.topic, c.range.partition)
    }
    checkDone()
    await done
    await batcher.flush()
    await Promise.all(unwritten.map((u) => u.written))
  } finally {
    stopping.aborted = true
    clearInterval(timer)
    await consumer.disconnect().catch(() => undefined)
    const admin = deps.kafka.admin()
    await admin
      .connect()
      .then(() => admin.deleteGroups([groupId]))
      .catch((err) => deps.log.debug('could not delete the replay group', { groupId, err }))
      .finally(() => admin.disconnect())
  }
  const end = finish()
  o.onProgress?.({ ...sample(), rate: end.rate })
  return end
}
