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

/**
 * Replays `o.ranges`, read top-down: the plan's cursors, the write path, the throwaway consumer, the
 * projector's consume loop with the replay's hooks (H70), progress, then reading to the end and
 * waiting for the last write. A step that must come before reading (keys, A15) is one call before
 * `readRanges`.
 */
export async function replay(deps: ReplayDeps, o: ReplayOptions): Promise<ReplaySummary> {
  const run = new ReplayRun(o.ranges)
  if (totalRecords(o.ranges) === 0) return run.finish()
  const stopping = { aborted: false }
  const pipeline = projectionOf(deps, o, stopping)
  const batcher = countedWrites(pipeline, o, run.summary)
  const outcome = new Outcome()
  const group = replayGroup(deps.kafka, o)
  const loop = rangeLoop(pipeline, batcher, o, run, group, outcome, deps.log)
  const progress = reportProgress(run, o)
  try {
    await readRanges(group, loop, run, outcome)
    await lastWrites(batcher, outcome)
  } finally {
    stopping.aborted = true
    progress.stop()
    await leaveGroup(deps, group)
  }
  const end = run.finish()
  o.onProgress?.({ ...progress.sample(), rate: end.rate })
  return end
}

/** The plan as cursors (the next offset to read in each range) and the counts the summary reports. */
class ReplayRun {
  readonly started = Date.now()
  readonly cursors: Map<string, Cursor>
  readonly summary: ReplaySummary = {
    records: 0,
    byTopic: {},
    events: 0,
    identifies: 0,
    deadLettered: 0,
    durationMs: 0,
    rate: 0,
    ends: {},
  }

  constructor(ranges: PartitionRange[]) {
    this.cursors = new Map(ranges.map((r) => [rangeKey(r.topic, r.partition), { range: r, pos: r.start }]))
    for (const r of ranges) this.summary.byTopic[r.topic] ??= 0
  }

  cursor(topic: string, partition: number): Cursor | undefined {
    return this.cursors.get(rangeKey(topic, partition))
  }

  /** Records of the ranges not yet read. */
  remaining(): number {
    let n = 0n
    for (const c of this.cursors.values()) n += c.range.end > c.pos ? c.range.end - c.pos : 0n
    return Number(n)
  }

  /** Records in ClickHouse or in the DLQ: the rate is the write rate, not how far reading ran ahead. */
  written(): number {
    return this.summary.events + this.summary.identifies + this.summary.deadLettered
  }

  finish(): ReplaySummary {
    const summary = this.summary
    summary.durationMs = Date.now() - this.started
    summary.rate = summary.durationMs > 0 ? (summary.records * 1000) / summary.durationMs : 0
    for (const [k, c] of this.cursors) summary.ends[k] = c.pos.toString()
    return summary
  }
}

/** The end of the reading: every range read, or the first failure (also a write's after the last read). */
class Outcome {
  readonly done: Promise<void>
  failure: { err: unknown } | null = null
  resolve!: () => void
  private rejectDone!: (err: unknown) => void

  constructor() {
    this.done = new Promise<void>((res, rej) => {
      this.resolve = res
      this.rejectDone = rej
    })
  }

  fail(err: unknown): void {
    this.rejectDone(err)
  }

  writeFailed(err: unknown): void {
    this.failure ??= { err }
    this.rejectDone(err)
  }
}

/** The live projector's write path (decode, ClickHouse with retry, DLQ), with the replay's filters. */
function projectionOf(deps: ReplayDeps, o: ReplayOptions, stopping: { aborted: boolean }): ProjectionPipeline {
  return new ProjectionPipeline(
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
}

/** The insert buffer, counting what each write stored and dead-lettered into the summary. */
function countedWrites(pipeline: ProjectionPipeline, o: ReplayOptions, summary: ReplaySummary): InsertBatcher {
  return new InsertBatcher(
    async (b: PreparedBatch) => {
      const { written } = await pipeline.writer.write(b)
      summary.events += written.events.length
      summary.identifies += written.identifies.length
      summary.deadLettered += b.events.length + b.identifies.length - written.events.length - written.identifies.length
    },
    { maxRows: o.maxRows, maxWaitMs: o.maxWaitMs },
  )
}

interface ReplayGroup {
  groupId: string
  consumer: Consumer
}

/** A standalone consumer in a throwaway group (random id, nothing committed, deleted by `leaveGroup`). */
function replayGroup(kafka: Kafka, o: ReplayOptions): ReplayGroup {
  const groupId = `replay-${Date.now()}-${randomBytes(4).toString('hex')}`
  const consumer: Consumer = kafka.consumer({
    groupId,
    maxWaitTimeInMs: 200,
    sessionTimeout: 30_000,
    heartbeatInterval: HEARTBEAT_MS,
    maxBytesPerPartition: o.fetchPartitionBytes,
    allowAutoTopicCreation: false,
  })
  return { groupId, consumer }
}

const pauseOne = (consumer: Consumer, topic: string, partition: number) =>
  consumer.pause([{ topic, partitions: [partition] }])

/**
 * Moves a partition's cursor past `lastOffset` (a record or a marker), never backwards or past its end;
 * a range read to its end is paused, and the last one ends the reading.
 */
function advance(consumer: Consumer, run: ReplayRun, outcome: Outcome, c: Cursor, lastOffset: string): void {
  const next = BigInt(lastOffset) + 1n
  if (next > c.pos) c.pos = next > c.range.end ? c.range.end : next
  if (c.pos >= c.range.end) {
    pauseOne(consumer, c.range.topic, c.range.partition)
    if (run.remaining() === 0) outcome.resolve()
  }
}

/** The projector's consume loop (consume-loop.ts) with the replay's hooks: its ranges only, cursors, no commits. */
function rangeLoop(
  pipeline: ProjectionPipeline,
  batcher: InsertBatcher,
  o: ReplayOptions,
  run: ReplayRun,
  group: ReplayGroup,
  outcome: Outcome,
  log: Logger,
): ConsumeLoop {
  const { summary } = run
  return new ConsumeLoop(
    pipeline,
    batcher,
    { maxRows: o.maxRows, maxPendingRows: 2 * o.maxRows, heartbeatIntervalMs: HEARTBEAT_MS },
    {
      select: (topic, partition, messages) => {
        const c = run.cursor(topic, partition)
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
        written.catch((err) => outcome.writeFailed(err))
      },
      resolved: (s) => {
        summary.records += s.records
        summary.byTopic[s.topic] = (summary.byTopic[s.topic] ?? 0) + s.records
        const c = run.cursor(s.topic, s.partition)
        if (c) advance(group.consumer, run, outcome, c, s.lastOffset)
      },
    },
    log,
  )
}

/** `o.onProgress` every `progressEveryMs` while the replay runs; `sample` for the last report. */
function reportProgress(run: ReplayRun, o: ReplayOptions): { sample: () => ReplayProgress; stop: () => void } {
  const samples: ProgressSample[] = [{ atMs: run.started, done: 0, remaining: run.remaining() }]
  const sample = () => {
    samples.push({ atMs: Date.now(), done: run.written(), remaining: run.remaining() })
    trimSamples(samples)
    return progressOf(samples)
  }
  const timer = setInterval(() => o.onProgress?.(sample()), o.progressEveryMs ?? 1000)
  return { sample, stop: () => clearInterval(timer) }
}

/** Joins, seeks each planned partition to its cursor (pausing the others) and reads until every range is read. */
async function readRanges(group: ReplayGroup, loop: ConsumeLoop, run: ReplayRun, outcome: Outcome): Promise<void> {
  const { consumer } = group
  await consumer.connect()
  consumer.on(consumer.events.CRASH, (e: any) =>
    outcome.fail(e?.payload?.error ?? new Error('replay consumer crashed')),
  )
  onMarkerFetches(consumer, (m) => {
    const c = run.cursor(m.topic, m.partition)
    if (c && c.pos < c.range.end) advance(consumer, run, outcome, c, m.lastOffset)
  })
  const topics = [...new Set([...run.cursors.values()].map((c) => c.range.topic))]
  await consumer.subscribe({ topics, fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 16,
    eachBatch: (p) =>
      loop.eachBatch(p).catch((err) => {
        outcome.fail(err)
        throw err
      }),
  })
  for (const c of run.cursors.values()) {
    if (c.pos < c.range.end)
      consumer.seek({ topic: c.range.topic, partition: c.range.partition, offset: c.pos.toString() })
    else pauseOne(consumer, c.range.topic, c.range.partition)
  }
  if (run.remaining() === 0) outcome.resolve()
  await outcome.done
}

/** Flushes what the buffer holds and waits for every write; a write that failed fails the replay. */
async function lastWrites(batcher: InsertBatcher, outcome: Outcome): Promise<void> {
  await batcher.flush()
  await batcher.settled()
  if (outcome.failure) throw outcome.failure.err
}

/** Disconnects and deletes the throwaway group; a group left behind is only logged. */
async function leaveGroup(deps: ReplayDeps, group: ReplayGroup): Promise<void> {
  await group.consumer.disconnect().catch(() => undefined)
  const admin = deps.kafka.admin()
  await admin
    .connect()
    .then(() => admin.deleteGroups([group.groupId]))
    .catch((err) => deps.log.debug('could not delete the replay group', { groupId: group.groupId, err }))
    .finally(() => admin.disconnect())
}
