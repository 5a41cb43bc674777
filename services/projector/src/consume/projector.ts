// The projector's consume loop: events and identifies topics -> ClickHouse (A1, A5).
// At-least-once: a partition's offset is committed only after the insert holding its records
// succeeded (offset-committer.ts); rows are keyed by event_id, so a redelivery never shows twice in
// exact queries. The next records are fetched while an insert runs: a batch's offset is resolved
// (kafkajs's fetch position) once its rows are queued, and the queue is bounded (maxPendingRows),
// so memory stays bounded while ClickHouse is slow or away.
// Records that can never be written go to the DLQ topic with the reason, and consumption goes on.
// While a batch waits for ClickHouse or the registry the member keeps heartbeating, so a slow
// dependency does not get it evicted from the group (H27, A5). stop() drains: it stops
// fetching, writes what is buffered and commits it, giving up only after drainMs.
import type { Consumer, Kafka, Producer } from '../../../shared/src/kafka/client.js'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../../../shared/src/log.js'
import type { Readiness } from '../../../shared/src/wait-for.js'
import { InsertBatcher } from './batcher.js'
import { writeThenPublish } from './projection-writer.js'
import { WrittenFeed, type RecordListener } from './written-feed.js'
import { ProjectionPipeline, type ErasureFilter, type ProjectionSink, type SealedRecords } from './projection.js'
import { OffsetCommitter } from './offset-committer.js'
import { ConsumeLoop, onMarkerFetches } from './consume-loop.js'
import type { Metrics } from './metrics.js'
import { retry } from '../../../shared/src/retry.js'

export type { ProjectionSink } from './projection.js'
export type { RecordListener } from './written-feed.js'

/** Between attempts to rejoin after a failed write: 200 ms, doubling up to 5 s. */
const RESTART_BACKOFF = { initialMs: 200, maxMs: 5_000, jitter: false }

export interface ProjectorOptions {
  groupId: string
  topics: { events: string; identifies: string; dlq: string }
  maxRows: number
  maxWaitMs: number
  /** Rows (all tables, H40) fetched and not yet written beyond which fetching waits (default 2 x maxRows). */
  maxPendingRows?: number
  retries: number
  fromBeginning: boolean
  /** Consumer group session; the member heartbeats every heartbeatIntervalMs, also while a batch waits. */
  sessionTimeoutMs?: number
  heartbeatIntervalMs?: number
  /** Backoff of ClickHouse and registry retries; tests pass small values. */
  initialRetryMs?: number
  maxRetryMs?: number
  /** How long stop() waits for a write in progress before giving up (its records are then re-read by the next member). */
  drainMs?: number
  readiness?: Readiness
  /** A12: records of erased people are not projected. */
  erasures?: ErasureFilter
  /** A16: sealed records are opened with the keys holder's keys. */
  sealed?: SealedRecords
}

export class Projector {
  private consumer: Consumer | null = null
  private readonly batcher: InsertBatcher
  private readonly pipeline: ProjectionPipeline
  private readonly feed: WrittenFeed
  private readonly abort = new AbortController()
  private readonly committer: OffsetCommitter
  private readonly loop: ConsumeLoop
  private stopping = false
  private restarting: Promise<void> | null = null

  constructor(
    private readonly kafka: Kafka,
    producer: Producer,
    codec: Codec,
    sink: ProjectionSink,
    private readonly opts: ProjectorOptions,
    private readonly metrics: Metrics,
    private readonly log: Logger,
  ) {
    this.pipeline = new ProjectionPipeline(
      producer,
      codec,
      sink,
      {
        dlqTopic: opts.topics.dlq,
        // Live records are new: they are written, so their rows are built as they are decoded (H69).
        rows: 'at-decode',
        retries: opts.retries,
        initialRetryMs: opts.initialRetryMs,
        maxRetryMs: opts.maxRetryMs,
        readiness: opts.readiness,
        waitForClickHouse: true,
        keepRecords: true,
        erasures: opts.erasures,
        sealed: opts.sealed,
      },
      metrics,
      log,
      this.abort.signal,
    )
    this.feed = new WrittenFeed(log)
    // A quarter of an insert's rows left over when an insert ends are written at once (batcher.ts):
    // under a backlog, each fetch's tail no longer sits out the rest of maxWaitMs.
    this.batcher = new InsertBatcher(
      writeThenPublish(this.pipeline.writer, (written) => this.feed.publish(written)),
      {
        maxRows: opts.maxRows,
        maxWaitMs: opts.maxWaitMs,
        minRowsAfterWrite: Math.max(1, Math.floor(opts.maxRows / 4)),
      },
    )
    metrics.insertBuffer(() => {
      const peaks = this.batcher.peaks
      return {
        pendingRows: this.batcher.pendingRows,
        peakPendingRows: peaks.pendingRows,
        peakInsertRows: peaks.insertRows,
      }
    })
    this.committer = new OffsetCommitter(
      (offsets) => this.commitOffsets(offsets),
      log,
      (topic, partition, next, high) => metrics.committedOffset(topic, partition, (next - 1n).toString(), high),
    )
    this.loop = new ConsumeLoop(
      this.pipeline,
      this.batcher,
      {
        maxRows: opts.maxRows,
        maxPendingRows: opts.maxPendingRows ?? 2 * opts.maxRows,
        heartbeatIntervalMs: this.heartbeatIntervalMs,
      },
      {
        deadLetters: (dead) => this.pipeline.deadLetters.send(dead),
        queued: (written) => {
          written.catch((err) => this.writeFailed(err))
        },
        // The offset is committed when the write ends, if no join came after the batch's fetch.
        resolved: (s, written) => this.committer.afterWrite(written, s, (err) => this.writeFailed(err)),
        halted: () => this.committer.poisoned,
        epoch: () => this.committer.epoch,
      },
      log,
    )
  }

  /** Resolves once every row fetched so far is written. */
  settled(): Promise<void> {
    return this.batcher.settled()
  }

  /** Called after each successful insert with the records it held (the live feed subscribes). */
  onWritten(listener: RecordListener) {
    this.feed.listen(listener)
  }

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.opts.groupId,
      maxWaitTimeInMs: 200,
      sessionTimeout: this.opts.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.heartbeatIntervalMs,
      maxBytesPerPartition: 4 * 1024 * 1024,
    })
    this.consumer = consumer
    // A join assigns partitions afresh and fetches from their committed offsets: a new epoch.
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.committer.newEpoch()
      this.metrics.groupJoined()
    })
    // Markers' offsets are committed once every row fetched before them is written.
    onMarkerFetches(consumer, (m) =>
      this.committer.afterWrite(this.batcher.settled(), { ...m, epoch: this.committer.epoch }, (err) =>
        this.writeFailed(err),
      ),
    )
    consumer.on(consumer.events.CRASH, (e) => {
      this.opts.readiness?.set('kafka', `consumer crashed: ${String(e.payload.error?.message ?? '').slice(0, 120)}`)
    })
    consumer.on(consumer.events.FETCH, () => this.opts.readiness?.set('kafka', 'ok'))
    await consumer.connect()
    await consumer.subscribe({
      topics: [this.opts.topics.events, this.opts.topics.identifies],
      fromBeginning: this.opts.fromBeginning,
    })
    await consumer.run({
      // Commits are ours (offset-committer.ts): what kafkajs resolves is only where it fetches next.
      autoCommit: false,
      eachBatchAutoResolve: false,
      // All partitions' batches of one fetch join the same insert (see InsertBatcher).
      partitionsConsumedConcurrently: 64,
      eachBatch: (p) => this.loop.eachBatch(p),
    })
  }

  private get heartbeatIntervalMs() {
    return this.opts.heartbeatIntervalMs ?? 3_000
  }

  /**
   * A write failed after its retries (or the drain gave up on it). Rows fetched after it may be
   * written and must not be committed past it: nothing fetched so far is committed, and the
   * consumer rejoins the group to fetch again from the committed offsets.
   */
  private writeFailed(err: unknown) {
    if (this.committer.poisoned) return
    this.committer.poison()
    if (this.stopping) return
    this.log.error('a clickhouse write failed; reading again from the committed offsets', { err })
    this.restarting ??= this.restartConsumer().finally(() => (this.restarting = null))
  }

  private async restartConsumer() {
    const old = this.consumer
    this.consumer = null
    await old?.disconnect().catch((err) => this.log.warn('consumer did not disconnect cleanly', { err }))
    // The new member's join starts a new epoch (GROUP_JOIN); until then nothing is committed.
    // Every failure is retried (H68: 200 ms doubling to 5 s, no jitter) until the projector stops.
    await retry(
      async () => {
        if (this.stopping) return
        try {
          await this.start()
        } catch (err) {
          // start() may have made a consumer that never joined.
          const failed = this.consumer as Consumer | null
          this.consumer = null
          await failed?.disconnect().catch(() => undefined)
          throw err
        }
      },
      {
        ...RESTART_BACKOFF,
        retryIf: () => true,
        onRetry: (err, failures) => {
          this.log.error('consumer could not be restarted; trying again', { attempt: failures - 1, err })
          this.opts.readiness?.set(
            'kafka',
            `consumer restart failed: ${String((err as Error)?.message ?? err).slice(0, 120)}`,
          )
        },
      },
    )
  }

  private commitOffsets(offsets: Array<{ topic: string; partition: number; offset: string }>): Promise<void> {
    const c = this.consumer
    if (!c) return Promise.reject(new Error('no consumer'))
    return c.commitOffsets(offsets)
  }

  /**
   * Graceful drain: stop fetching, let the batches in progress queue their rows, write what is
   * queued now rather than after maxWaitMs, commit it, leave the group. If a write still waits on
   * ClickHouse after drainMs, its retries give up and those offsets stay uncommitted, so the next
   * member re-reads them (rows are keyed by event_id: FINAL shows them once).
   */
  async stop(): Promise<void> {
    this.stopping = true
    // A restart in progress has nothing to drain: its old consumer's records are not committed and are
    // read again after the next start (A1). That consumer leaves only once its batch returns, and a batch
    // waiting for the registry or ClickHouse returns only when the wait is given up: give it up now.
    if (this.restarting !== null) this.abort.abort()
    await this.restarting
    const consumer = this.consumer
    const giveUp = setTimeout(() => this.abort.abort(), this.opts.drainMs ?? 30_000)
    try {
      try {
        consumer?.pause([{ topic: this.opts.topics.events }, { topic: this.opts.topics.identifies }])
      } catch {
        // not running yet: nothing was fetched
      }
      await this.loop.idle()
      await this.batcher.flush()
      // The commits follow each write's settlement; let those callbacks run, then wait for them.
      await new Promise((resolve) => setImmediate(resolve))
      await this.committer.idle()
    } finally {
      clearTimeout(giveUp)
      this.abort.abort()
    }
    await consumer?.disconnect()
  }
}
