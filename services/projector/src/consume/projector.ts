// The projector's consume loop: events and identifies topics -> ClickHouse (A1, A5).
// At-least-once: a partition's offsets are resolved only after the insert holding its records
// succeeded; rows are keyed by event_id, so a redelivery never shows twice in exact queries.
// Records that can never be written go to the DLQ topic with the reason, and consumption goes on.
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs'
import type { Codec } from '../../../../schemas/codec.js'
import type { Logger } from '../../../shared/src/log.js'
import { InsertBatcher, type ProjectionBatch } from './batcher.js'
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
}

export type RecordListener = (batch: ProjectionBatch) => void

export class Projector {
  private consumer: Consumer | null = null
  private readonly batcher: InsertBatcher
  private readonly pipeline: ProjectionPipeline
  private readonly listeners: RecordListener[] = []
  private readonly stopping = { aborted: false }

  constructor(
    private readonly kafka: Kafka,
    producer: Producer,
    codec: Codec,
    sink: ProjectionSink,
    private readonly opts: ProjectorOptions,
    private readonly metrics: Metrics,
    private readonly log: Logger,
  ) {
    this.pipeline = new ProjectionPipeline(producer, codec, sink, { dlqTopic: opts.topics.dlq, retries: opts.retries }, metrics, log, this.stopping)
    this.batcher = new InsertBatcher((b) => this.writeAndPublish(b), { maxRows: opts.maxRows, maxWaitMs: opts.maxWaitMs })
  }

  /** Called after each successful insert with the records it held (the live feed subscribes). */
  onWritten(listener: RecordListener) {
    this.listeners.push(listener)
  }

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.opts.groupId,
      maxWaitTimeInMs: 200,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      maxBytesPerPartition: 4 * 1024 * 1024,
    })
    this.consumer = consumer
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

  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    if (batch.messages.length === 0) return
    const { part, dead } = await this.pipeline.decode(batch.topic, batch.partition, batch.messages)
    await this.pipeline.sendToDlq(dead)
    await this.batcher.add(part)
    if (!isRunning() || isStale()) return
    resolveOffset(batch.lastOffset())
    this.metrics.committedOffset(batch.topic, batch.partition, batch.lastOffset(), batch.highWatermark)
    await heartbeat()
  }

  /** Writes one insert's worth of records, then hands what ClickHouse holds to the live feed. */
  private async writeAndPublish(batch: ProjectionBatch): Promise<void> {
    const { written } = await this.pipeline.write(batch)
    for (const l of this.listeners) {
      try {
        l(written)
      } catch (err) {
        this.log.error('live listener failed', { err })
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping.aborted = true
    await this.batcher.flush().catch(() => undefined)
    await this.consumer?.disconnect()
  }
}
