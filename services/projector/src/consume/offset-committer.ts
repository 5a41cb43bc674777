// The live projector's offset commits (A5: a committed offset never passes a row ClickHouse does
// not hold). The projector resolves a batch's offset as soon as its rows are queued for ClickHouse,
// so kafkajs fetches the next records while the insert runs; kafkajs must therefore not commit
// what it resolved (autoCommit off), and the commits are made here, once the insert holding a
// partition's rows has succeeded.
//
// - Writes end in the order their rows were fetched (the batcher writes one at a time, in order),
//   so a partition's commits arrive in increasing order; pending ones are merged and one commit
//   request is in flight at a time.
// - A failed write poisons what was fetched so far: later rows of the same partitions were fetched
//   past the failed ones and may be written, but committing them would skip the failed rows. No
//   commit of the poisoned epochs is made; the projector rejoins the group, which fetches again
//   from the last committed offsets (a new epoch), and the rows already written are written again
//   under the same event_id (A5: FINAL shows them once).
// - A commit that fails is dropped, not retried: it only means more records are read again after
//   a restart, and the partition's next commit carries a later offset anyway.
import type { Logger } from '../../../shared/src/log.js'

export interface PartitionOffset {
  topic: string
  partition: number
  /** The next offset to read: the last written record's offset plus one. */
  offset: string
}

export type CommitFn = (offsets: PartitionOffset[]) => Promise<void>

/** Told of each commit that landed: the partition, its next offset and the high watermark seen with it. */
export type CommittedFn = (topic: string, partition: number, nextOffset: bigint, highWatermark: string) => void

/** Where a slice (or a fetch of only markers) ends in its partition, and the epoch it was fetched in. */
export interface WrittenPosition {
  topic: string
  partition: number
  lastOffset: string
  highWatermark: string
  epoch: number
}

interface Pending {
  topic: string
  partition: number
  next: bigint
  high: string
  epoch: number
}

export class OffsetCommitter {
  private epochNow = 0
  private poisonedThrough = -1
  private readonly pending = new Map<string, Pending>()
  private running: Promise<void> | null = null

  constructor(
    private readonly commit: CommitFn,
    private readonly log: Logger,
    private readonly onCommitted?: CommittedFn,
  ) {}

  /** The epoch records fetched now belong to; pass it back to `written`. */
  get epoch(): number {
    return this.epochNow
  }

  /** True once a write of the current epoch failed: nothing fetched in it is committed any more. */
  get poisoned(): boolean {
    return this.poisonedThrough >= this.epochNow
  }

  /** The consumer fetches from the committed offsets again (it joined the group anew). */
  newEpoch(): void {
    this.epochNow++
  }

  /** A write failed: no commit for anything fetched up to now. */
  poison(): void {
    this.poisonedThrough = this.epochNow
    for (const [k, p] of this.pending) if (p.epoch <= this.poisonedThrough) this.pending.delete(k)
  }

  /** The rows of `topic`/`partition` before `next` are in ClickHouse (fetched in `epoch`). */
  written(topic: string, partition: number, next: bigint, epoch: number, highWatermark: string): void {
    if (epoch <= this.poisonedThrough) return
    const k = `${topic}\u0000${partition}`
    const p = this.pending.get(k)
    if (p === undefined || next > p.next) this.pending.set(k, { topic, partition, next, high: highWatermark, epoch })
    this.running ??= this.drain()
  }

  /**
   * Step 8 of the projector's walk (docs/design.md): a queued slice's `lastOffset` + 1 is committed
   * once `written` resolves, if no join came since its fetch; a rejection goes to `failed`, which
   * must poison the commits (a later write may land past the failed one).
   */
  afterWrite(written: Promise<void>, at: WrittenPosition, failed: (err: unknown) => void): void {
    written.then(
      () => this.written(at.topic, at.partition, BigInt(at.lastOffset) + 1n, at.epoch, at.highWatermark),
      failed,
    )
  }

  /** Resolves once nothing is pending or being committed. */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        // Nothing of a poisoned epoch is pending: written() refuses it and poison() drops it.
        const batch = [...this.pending.values()]
        this.pending.clear()
        try {
          await this.commit(batch.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.next.toString() })))
          for (const p of batch) this.onCommitted?.(p.topic, p.partition, p.next, p.high)
        } catch (err) {
          this.log.warn('offset commit failed; those records will be read again after a restart', {
            partitions: batch.length,
            err,
          })
        }
      }
    } finally {
      this.running = null
    }
  }
}
