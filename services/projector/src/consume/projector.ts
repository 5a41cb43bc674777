// The projector's consume loop: events and identifies topics -> ClickHouse (A1, A5).
// At-least-once: a partition's offsets are resolved only after the insert holding its records
// succeeded; rows are keyed by event_id, so a redelivery never shows twice in exact queries.
// Records that can never be written go to the DLQ topic with the reason, and consumption goes on.
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs'
import type { Codec } from '../../../../schemas/codec.js'
import type { DeadLetterRecord, EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import { InsertBatcher, type ProjectionBatch } from './batcher.js'
import { withRetry, isRetriable } from './retry.js'
import type { Metrics } from './metrics.js'

export interface ProjectorOptions {
  groupId: string
  topics: { events: string; identifies: string; dlq: string }
  maxRows: number
  maxWaitMs: number
  retries: number
  fromBeginning: boolean
}

export interface ProjectionSink {
  write(batch: ProjectionBatch): Promise<unknown>
}

export type RecordListener = (batch: ProjectionBatch) => void

export class Projector {
  private consumer: Consumer | null = null
  private readonly batcher: InsertBatcher
  private readonly listeners: RecordListener[] = []
  private stopping = { aborted: false }

  constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly codec: Codec,
    private readonly sink: ProjectionSink,
    private readonly opts: ProjectorOptions,
    private readonly metrics: Metrics,
    private readonly log: Logger,
  ) {
    this.batcher = new InsertBatcher((b) => this.writeWithRetry(b), { maxRows: opts.maxRows, maxWaitMs: opts.maxWaitMs })
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
    const part: ProjectionBatch = { events: [], identifies: [] }
    const dead: DeadLetterRecord[] = []
    for (const m of batch.messages) {
      try {
        if (!m.value) throw Object.assign(new Error('record has no value'), { code: 'EMPTY_VALUE' })
        const d = await this.codec.decode(m.value)
        if (d.name === 'Event') part.events.push(d.value as EventRecord)
        else if (d.name === 'Identify') part.identifies.push(d.value as IdentifyRecord)
        else throw Object.assign(new Error(`unexpected record type ${d.name} on ${batch.topic}`), { code: 'UNEXPECTED_TYPE' })
      } catch (err) {
        dead.push(this.deadLetter(batch.topic, batch.partition, m.offset, m.key, m.value, err))
      }
    }
    if (dead.length) await this.sendToDlq(dead)
    await this.batcher.add(part)
    if (!isRunning() || isStale()) return
    resolveOffset(batch.lastOffset())
    this.metrics.committedOffset(batch.topic, batch.partition, batch.lastOffset(), batch.highWatermark)
    await heartbeat()
  }

  private deadLetter(topic: string, partition: number, offset: string, key: Buffer | null, value: Buffer | null, err: unknown): DeadLetterRecord {
    const e = err as { code?: string; message?: string }
    return {
      topic,
      partition,
      offset,
      key: key ?? null,
      value: value ?? null,
      reason: String(e?.message ?? err),
      error_code: String(e?.code ?? 'UNKNOWN'),
      failed_at: Date.now(),
    }
  }

  private async sendToDlq(dead: DeadLetterRecord[]) {
    this.metrics.dlq(dead.length)
    for (const d of dead) this.log.warn('record sent to the DLQ', { topic: d.topic, partition: d.partition, offset: d.offset, reason: d.reason })
    await withRetry(
      () => this.producer.send({
        topic: this.opts.topics.dlq,
        acks: -1,
        messages: dead.map((d) => ({ key: `${d.topic}/${d.partition}/${d.offset}`, value: this.codec.encode('DeadLetter', d) })),
      }),
      { retries: this.opts.retries, initialMs: 200, maxMs: 5000, signal: this.stopping },
    )
  }

  private async writeWithRetry(batch: ProjectionBatch): Promise<void> {
    const started = process.hrtime.bigint()
    try {
      await withRetry(() => this.sink.write(batch), {
        retries: this.opts.retries,
        initialMs: 200,
        maxMs: 10_000,
        signal: this.stopping,
        onRetry: (err, attempt, delayMs) => this.log.warn('clickhouse insert failed; retrying', { attempt, delayMs, err }),
      })
    } catch (err) {
      if (isRetriable(err) || this.stopping.aborted) throw err
      // A batch the server refuses for its data: find the records at fault one by one, DLQ them, keep the rest.
      await this.isolateBadRecords(batch, err)
    }
    this.metrics.inserted(batch.events.length, batch.identifies.length, Number(process.hrtime.bigint() - started) / 1e9)
    for (const l of this.listeners) {
      try {
        l(batch)
      } catch (err) {
        this.log.error('live listener failed', { err })
      }
    }
  }

  private async isolateBadRecords(batch: ProjectionBatch, cause: unknown) {
    this.log.error('clickhouse refused a batch; isolating the records at fault', { err: cause })
    const dead: DeadLetterRecord[] = []
    for (const e of batch.events) {
      try {
        await this.sink.write({ events: [e], identifies: [] })
      } catch (err) {
        dead.push(this.deadLetter('events', -1, e.event_id, null, this.codec.encode('Event', e), err))
      }
    }
    for (const i of batch.identifies) {
      try {
        await this.sink.write({ events: [], identifies: [i] })
      } catch (err) {
        dead.push(this.deadLetter('identifies', -1, i.event_id, null, this.codec.encode('Identify', i), err))
      }
    }
    if (dead.length) await this.sendToDlq(dead)
  }

  async stop(): Promise<void> {
    this.stopping.aborted = true
    await this.batcher.flush().catch(() => undefined)
    await this.consumer?.disconnect()
  }
}
