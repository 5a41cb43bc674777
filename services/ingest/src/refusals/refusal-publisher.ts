// Drains the refusal aggregator every few seconds onto the refusals topic (H66): one record per account per
// drain. Best effort by design: a drain runs off every request's path, a failed send drops its batch
// (counted) instead of holding it for a retry, and nothing here can delay or change an answer (A4).
import type { Logger } from '../../../shared/src/log.js'
import type { RefusalsRecord } from '../../../../schemas/records.js'
import type { RefusalAggregator, RefusalBatch } from './refusal-aggregator.js'

export interface RefusalMessage {
  key: string
  value: Buffer
}

export interface RefusalPublisherDeps {
  aggregator: RefusalAggregator
  /** Appends the messages to the refusals topic (the Kafka producer, passed in at the edge). */
  send(messages: RefusalMessage[]): Promise<void>
  encode(record: RefusalsRecord): Buffer
  instanceId: string
  now: () => number
  log: Logger
  /** Counted for operators: records written, and refusals dropped at the caps or with a failed send. */
  onDrain?(outcome: { records: number; droppedCounts: number; droppedSamples: number; failed: boolean }): void
}

/** The drained batch as one record per account (pure). */
export function toRefusalRecords(batch: RefusalBatch, instanceId: string, drainedAt: number): RefusalsRecord[] {
  const byAccount = new Map<string, RefusalsRecord>()
  const of = (accountId: string) => {
    let r = byAccount.get(accountId)
    if (r === undefined) {
      r = { account_id: accountId, instance_id: instanceId, drained_at: drainedAt, counts: [], samples: [] }
      byAccount.set(accountId, r)
    }
    return r
  }
  for (const { accountId, ...count } of batch.counts) of(accountId).counts.push(count)
  for (const { accountId, ...sample } of batch.samples) of(accountId).samples.push(sample)
  return [...byAccount.values()]
}

export class RefusalPublisher {
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<void> = Promise.resolve()

  constructor(private readonly d: RefusalPublisherDeps) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs)
    this.timer.unref()
  }

  /** Drains now; resolves when the send settled, never rejects. */
  flush(): Promise<void> {
    this.inFlight = this.inFlight.then(() => this.publish())
    return this.inFlight
  }

  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }

  private async publish(): Promise<void> {
    const batch = this.d.aggregator.drain()
    const records = toRefusalRecords(batch, this.d.instanceId, this.d.now())
    let failed = false
    if (records.length > 0) {
      try {
        await this.d.send(records.map((r) => ({ key: r.account_id, value: this.d.encode(r) })))
      } catch (err) {
        failed = true
        this.d.log.warn('refusals: a drain could not be written and is dropped (H66)', {
          records: records.length,
          err: (err as Error).message,
        })
      }
    }
    const { droppedCounts, droppedSamples } = batch
    this.d.onDrain?.({ records: failed ? 0 : records.length, droppedCounts, droppedSamples, failed })
  }
}
