// Reads planned offset ranges with a standalone consumer and writes them through the projector's
// write path (decode, ClickHouse with retry, DLQ). It never touches the live consumer group: it
// joins a throwaway group (random id, no offsets committed, deleted at the end), seeks each
// partition to its start, pauses partitions that are done or not planned, and stops once every
// partition reached the end offset captured when the replay began.
//
// It runs the live projector's consume loop (consume/consume-loop.ts: slices of about maxRows rows,
// back-pressure at two inserts' worth of rows not yet written, fetch positions resolved as slices are
// queued, fetches of only transaction markers followed) with its own hooks: only the records in its
// ranges are projected, each resolved offset moves the partition's cursor, and nothing is committed
// to Kafka, so this needs no ordering beyond the buffer's own (flushes run one at a time, in order)
// and the final flush before returning.
import { randomBytes } from 'node:crypto'
import type { Consumer, Kafka, Producer } from '../../../shared/src/kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../../../shared/src/log.js'
import { InsertBatcher } from '../consume/batcher.js'
import type { PreparedBatch } from '../clickhouse/prepared.js'
import { ConsumeLoop, onMarkerFetches } from '../consume/consume-loop.js'
import {
  ProjectionPipeline,
  type ErasureFilter,
  type RetentionFilter,
  type SealedRecords,
  type PipelineMetrics,
  type ProjectionSink,
  type RowBuilding,
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
  /** H60: records older than their account's retention are not replayed (their events still count). */
  retention?: RetentionFilter
  /** A16: sealed records are opened with the keys holder's keys (read to the topic's end first). */
  sealed?: SealedRecords
}

export interface ReplayOptions {
  ranges: PartitionRange[]
  dlqTopic: string
  /** When rows are built (H69): after the H16 lookup when the target tables held ids as the replay
   * began (most records are then dropped), else at decode (the default). */
  rows?: RowBuilding
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

const HEARTBEAT_MS = 3_000

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
    {
      dlqTopic: o.dlqTopic,
      rows: o.rows ?? 'at-decode',
      retries: o.retries,
      erasures: deps.erasures,
      retention: deps.retention,
      sealed: deps.sealed,
    },
    deps.metrics,
    deps.log,
    stopping,
  )
  const batcher = new InsertBatcher(
    async (b: PreparedBatch) => {
      const { written } = await pipeline.writer.write(b)
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

  // A write that failed: the replay fails, also when it comes after the last offset was read.
  let failure = null as { err: unknown } | null
  const writeFailed = (err: unknown) => {
    failure ??= { err }
    rejectDone(err)
  }

  const groupId = `replay-${Date.now()}-${randomBytes(4).toString('hex')}`
  const consumer: Consumer = deps.kafka.consumer({
    groupId,
    maxWaitTimeInMs: 200,
    sessionTimeout: 30_000,
    heartbeatInterval: HEARTBEAT_MS,
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

  // The projector's loop (consume-loop.ts) with the replay's ranges; nothing is committed.
  const loop = new ConsumeLoop(
    pipeline,
    batcher,
    { maxRows: o.maxRows, maxPendingRows: 2 * o.maxRows, heartbeatIntervalMs: HEARTBEAT_MS },
    {
      select: (topic, partition, messages) => {
        const c = cursors.get(rangeKey(topic, partition))
        if (!c || c.pos >= c.range.end) return null
        return messages.filter((m) => {
          const off = BigInt(m.offset)
          return off >= c.pos && off < c.range.end
        })
      },
      deadLetters: async (dead) => {
        if (dead.length === 0) return
        if (o.dlq !== false) await pipeline.deadLetters.send(dead)
        summary.deadLettered += dead.length
      },
      queued: (written) => {
        written.catch(writeFailed)
      },
      resolved: (s) => {
        summary.records += s.records
        summary.byTopic[s.topic] = (summary.byTopic[s.topic] ?? 0) + s.records
        const c = cursors.get(rangeKey(s.topic, s.partition))
        if (c) advance(c, s.lastOffset)
      },
    },
    deps.log,
  )

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
    onMarkerFetches(consumer, (m) => {
      const c = cursors.get(rangeKey(m.topic, m.partition))
      if (c && c.pos < c.range.end) advance(c, m.lastOffset)
    })
    await consumer.subscribe({ topics, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 16,
      eachBatch: (p) =>
        loop.eachBatch(p).catch((err) => {
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
    await batcher.settled()
    if (failure) throw failure.err
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
