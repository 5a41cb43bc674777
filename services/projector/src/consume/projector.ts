// The projector's consume loop: events and identifies topics -> ClickHouse (A1, A5).
// At-least-once: a partition's offsets are resolved only after the insert holding its records
// succeeded; rows are keyed by event_id, so a redelivery never shows twice in exact queries.
// Records that can never be written go to the DLQ topic with the reason, and consumption goes on.
// While a batch waits for ClickHouse or the registry the member keeps heartbeating, so a slow
// dependency does not get it evicted from the group (issue 9, item 5). stop() drains: it stops
// fetching, writes what is buffered and commits it, giving up only after drainMs.
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../../../shared/src/log.js'
import type { Readiness } from '../../../shared/src/wait-for.js'
import { InsertBatcher, type ProjectionBatch } from './batcher.js'
import type { WriteBatch } from '../clickhouse/writer.js'
import { ProjectionPipeline, type ProjectionSink } from './projection.js'
import type { Metrics } from './metrics.js'

export type { ProjectionSink } from './projection.js'

export interface ProjectorOptions {
  groupId: string
  topics: { events: string; identifies: string; dlq: string }
  maxRows: number
  maxWaitMs: number
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
}

export type RecordListener = (batch: WriteBatch) => void

export class Projector {
  private consumer: Consumer | null = null
  private readonly batcher: InsertBatcher
  private readonly pipeline: ProjectionPipeline
  private readonly listeners: RecordListener[] = []
  private readonly abort = new AbortController()

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
      { dlqTopic: opts.topics.dlq, retries: opts.retries, initialRetryMs: opts.initialRetryMs, maxRetryMs: opts.maxRetryMs, readiness: opts.readiness, waitForClickHouse: true, keepRecords: true },
      metrics,
      log,
      this.abort.signal,
    )
    // A quarter of an insert's rows left over when an insert ends are written at once (batcher.ts):
    // under a backlog, each fetch's tail no longer sits out the rest of maxWaitMs.
    this.batcher = new InsertBatcher((b) => this.writeAndPublish(b), { maxRows: opts.maxRows, maxWaitMs: opts.maxWaitMs, minRowsAfterWrite: Math.max(1, Math.floor(opts.maxRows / 4)) })
  }

  /** Called after each successful insert with the records it held (the live feed subscribes). */
  onWritten(listener: RecordListener) {
    this.listeners.push(listener)
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
    consumer.on(consumer.events.GROUP_JOIN, () => this.metrics.groupJoined())
    consumer.on(consumer.events.CRASH, (e) => {
      this.opts.readiness?.set('kafka', `consumer crashed: ${String(e.payload.error?.message ?? '').slice(0, 120)}`)
    })
    consumer.on(consumer.events.FETCH, () => this.opts.readiness?.set('kafka', 'ok'))
    await consumer.connect()
    await consumer.subscribe({ topics: [this.opts.topics.events, this.opts.topics.identifies], fromBeginning: this.opts.fromBeginning })
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 1000,
      eachBatchAutoResolve: false,
      // All partitions' batches of one fetch join the same insert (see InsertBatcher).
      partitionsConsumedConcurrently: 64,
      eachBatch: (p) => this.eachBatch(p),
    })
  }

  private get heartbeatIntervalMs() {
    return this.opts.heartbeatIntervalMs ?? 3_000
  }

  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    // A batch fetched after stop() began is left for the next member.
    if (batch.messages.length === 0 || !isRunning()) return
    // kafkajs heartbeats only between batches; a batch waiting out a ClickHouse or registry outage
    // longer than the session would get the member evicted and the group rebalancing over and over.
    const beat = setInterval(() => {
      heartbeat().catch((err) => this.log.debug('heartbeat while waiting failed', { err }))
    }, this.heartbeatIntervalMs)
    try {
      const { part, dead } = await this.pipeline.decode(batch.topic, batch.partition, batch.messages)
      await this.pipeline.sendToDlq(dead)
      await this.batcher.add(part)
    } finally {
      clearInterval(beat)
    }
    // Written: resolve even while stopping (kafkajs commits resolved offsets before it leaves the
    // group), unless the partition was taken from us meanwhile.
    if (isStale()) return
    resolveOffset(batch.lastOffset())
    this.metrics.committedOffset(batch.topic, batch.partition, batch.lastOffset(), batch.highWatermark)
    if (isRunning()) await heartbeat()
  }

  /** Writes one insert's worth of records, then hands what ClickHouse holds to the live feed. */
  private async writeAndPublish(batch: ProjectionBatch): Promise<void> {
    const { written } = await this.pipeline.write(batch)
    if (this.listeners.length === 0) return
    // The pipeline keeps each record beside its rows for this (keepRecords).
    const records: WriteBatch = { events: written.events.map((p) => p.record!), identifies: written.identifies.map((p) => p.record!) }
    for (const l of this.listeners) {
      try {
        l(records)
      } catch (err) {
        this.log.error('live listener failed', { err })
      }
    }
  }

  /**
   * Graceful drain: stop fetching (kafkajs waits for the batches in progress), write what is
   * buffered now rather than after maxWaitMs, commit it, leave the group. If a write still waits
   * on ClickHouse after drainMs, its retries give up and those offsets stay uncommitted, so the
   * next member re-reads them (rows are keyed by event_id: FINAL shows them once).
   */
  async stop(): Promise<void> {
    const disconnected = this.consumer?.disconnect() ?? Promise.resolve()
    const flushed = this.batcher.flush()
    const giveUp = setTimeout(() => this.abort.abort(), this.opts.drainMs ?? 30_000)
    try {
      await Promise.allSettled([flushed, disconnected])
    } finally {
      clearTimeout(giveUp)
      this.abort.abort()
    }
    await disconnected
  }
}
