// The consume loop the live projector (projector.ts) and the replay (replay/replayer.ts) share: each
// fetched batch is decoded about maxRows rows at a time (H40), its records that can never be written
// go to the dead letters, its rows join the insert buffer, and the next slice waits until the rows
// not yet written are back under the bound, so memory stays bounded while ClickHouse is slow or away.
// Once a slice is queued its last offset is resolved: with eachBatchAutoResolve off, that is only
// where kafkajs fetches next; what is committed, if anything, is the caller's (`resolved`).
// What differs between the two callers is in their hooks: which records of a batch are projected
// (a replay's ranges), what a dead letter and a write's outcome do (commits and epochs, or counts).
import type {
  Consumer,
  ConsumerEndBatchProcessEvent,
  EachBatchPayload,
  KafkaMessage,
} from '../../../shared/src/kafka/client.js'
import type { DeadLetterRecord } from '../../../../schemas/records.js'
import type { Logger } from '../../../shared/src/log.js'
import type { InsertBatcher } from './batcher.js'
import type { ProjectionPipeline } from './projection.js'

export interface ConsumeLoopOptions {
  /** Rows decoded at a time (H40). */
  maxRows: number
  /** Rows queued and not yet written beyond which the next slice waits. */
  maxPendingRows: number
  /** The member heartbeats this often while a batch waits (kafkajs heartbeats only between batches). */
  heartbeatIntervalMs: number
}

/** Where a slice's records stand in their partition. */
export interface QueuedSlice {
  topic: string
  partition: number
  /** The slice's last offset; the batch's last one (transaction markers included) for its last slice. */
  lastOffset: string
  highWatermark: string
  /** Records of the slice (projected, dead-lettered or filtered as erased). */
  records: number
  /** The caller's epoch when the batch began (`epoch`): a join meanwhile makes its commits stale. */
  epoch: number
}

export interface ConsumeLoopHooks {
  /** The batch's records to project, or null to leave the batch alone (unresolved). Default: all. */
  select?(topic: string, partition: number, messages: KafkaMessage[]): KafkaMessage[] | null
  /** Records that can never be written; not yet sent. */
  deadLetters(dead: DeadLetterRecord[]): Promise<void>
  /** A slice's rows joined the buffer; `written` settles when they are through their write. */
  queued(written: Promise<void>): void
  /** A slice's offset was resolved; `written` as given to `queued`. */
  resolved(slice: QueuedSlice, written: Promise<void>): void
  /** Take no further slice of this batch (a failed write to recover from). */
  halted?(): boolean
  /** The group generation a batch is fetched in (offset-committer.ts); 0 by default. */
  epoch?(): number
}

export class ConsumeLoop {
  /** eachBatch calls in progress, and who waits for there to be none (the drain). */
  private active = 0
  private idleWaiters: Array<() => void> = []

  constructor(
    private readonly pipeline: ProjectionPipeline,
    private readonly batcher: InsertBatcher,
    private readonly opts: ConsumeLoopOptions,
    private readonly hooks: ConsumeLoopHooks,
    private readonly log: Logger,
  ) {}

  /** The consumer's eachBatch. */
  async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    // A batch fetched after stop() began is left for the next member; after a failed write the
    // consumer is about to rejoin and fetch from the committed offsets again.
    if (batch.messages.length === 0 || !isRunning() || this.hooks.halted?.()) return
    const messages = this.hooks.select
      ? this.hooks.select(batch.topic, batch.partition, batch.messages)
      : batch.messages
    if (messages === null) return
    const epoch = this.hooks.epoch?.() ?? 0
    this.active++
    // A batch waiting out a ClickHouse or registry outage longer than the session would otherwise
    // get the member evicted and the group rebalancing over and over.
    const beat = setInterval(() => {
      heartbeat().catch((err) => this.log.debug('heartbeat while waiting failed', { err }))
    }, this.opts.heartbeatIntervalMs)
    try {
      if (messages.length === 0) {
        // Nothing of it to project (outside a replay's ranges): past it all the same.
        resolveOffset(batch.lastOffset())
        this.hooks.resolved(this.slice(batch, batch.lastOffset(), 0, epoch), Promise.resolve())
      }
      for (let rest = messages; rest.length > 0; ) {
        const { part, dead, taken } = await this.pipeline.decode(batch.topic, batch.partition, rest, this.opts.maxRows)
        await this.hooks.deadLetters(dead)
        const written = this.batcher.add(part)
        this.hooks.queued(written)
        // Not the write: room for the next rows.
        await this.batcher.whenRoom(this.opts.maxPendingRows)
        // Queued: resolve even while stopping (the drain writes what is queued), unless the
        // partition was taken from us meanwhile.
        if (isStale()) return
        const last = taken === rest.length ? batch.lastOffset() : rest[taken - 1]!.offset
        resolveOffset(last)
        this.hooks.resolved(this.slice(batch, last, taken, epoch), written)
        rest = rest.slice(taken)
        // The rest is left for the next member (the drain waits for this batch), or read again
        // after a failed write.
        if (rest.length > 0 && (!isRunning() || this.hooks.halted?.())) break
      }
    } finally {
      clearInterval(beat)
      if (--this.active === 0) this.idleWaiters.splice(0).forEach((f) => f())
    }
    if (isRunning()) await heartbeat()
  }

  private slice(batch: EachBatchPayload['batch'], lastOffset: string, records: number, epoch: number): QueuedSlice {
    const { topic, partition, highWatermark } = batch
    return { topic, partition, lastOffset, highWatermark, records, epoch }
  }

  /** Resolves once no batch is in progress. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve()
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve))
  }
}

/**
 * Fetches of only transaction markers or aborted records never reach eachBatch: kafkajs resolves
 * them itself. A caller that follows positions (commits, a replay's end) must see them too, or a
 * partition whose log ends in markers never shows its lag as 0, or never counts as done.
 */
export function onMarkerFetches(
  consumer: Consumer,
  fn: (p: { topic: string; partition: number; lastOffset: string; highWatermark: string }) => void,
): void {
  consumer.on(consumer.events.END_BATCH_PROCESS, (e: ConsumerEndBatchProcessEvent) => {
    if (e.payload.batchSize === 0) fn(e.payload)
  })
}
