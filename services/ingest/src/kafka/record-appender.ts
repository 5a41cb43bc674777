// Group commit for the ingest hot path (A4, issue 5): records from concurrent requests are gathered
// for at most `lingerMs` (or until `maxBatchRecords`) and appended in one produce. With
// `transactional`, each flush is one Kafka transaction, so a request's records are all written or
// none are: a 503 never leaves half a batch behind. Each request's promise settles only after the
// flush holding its records is acknowledged by all in-sync replicas (acks=all, idempotent producer).
//
// A producer runs one transaction at a time, and kafkajs's idempotent producer sends one request
// per broker at a time, so a flush costs several broker round trips during which that producer is
// busy. Given a pool of producers (each with its own transactional id), up to `maxInFlight`
// flushes run at once, each on a producer of its own and each still one transaction.
import type { Producer, Message } from 'kafkajs'
import type { Logger } from '../../../shared/src/log.js'

export interface OutRecord {
  topic: string
  key: string
  value: Buffer
}

export interface AppenderOptions {
  lingerMs: number
  maxBatchRecords: number
  transactional: boolean
  /** Flushes in flight at once; with transactions, at most one per producer of the pool. */
  maxInFlight: number
}

interface Pending {
  records: OutRecord[]
  resolve: () => void
  reject: (err: unknown) => void
}

export class KafkaAppendError extends Error {
  readonly code = 'KAFKA_APPEND_FAILED'
  readonly retriable = true
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

export class RecordAppender {
  private queue: Pending[] = []
  private queuedRecords = 0
  private inFlight = 0
  private timer: NodeJS.Timeout | null = null
  private closed = false
  private idle: Array<() => void> = []
  private readonly free: Producer[]
  private readonly maxInFlight: number
  readonly stats = { flushes: 0, records: 0, failures: 0 }

  constructor(producers: Producer | readonly Producer[], private readonly opts: AppenderOptions, private readonly log: Logger) {
    const pool = Array.isArray(producers) ? [...producers] : [producers as Producer]
    if (pool.length === 0) throw new RangeError('RecordAppender needs at least one producer')
    this.free = pool
    // A transaction belongs to one producer: never more transactions at once than producers.
    this.maxInFlight = Math.max(1, opts.transactional ? Math.min(opts.maxInFlight, pool.length) : opts.maxInFlight)
  }

  append(records: OutRecord[]): Promise<void> {
    if (this.closed) return Promise.reject(new KafkaAppendError('appender is closed'))
    if (records.length === 0) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ records, resolve, reject })
      this.queuedRecords += records.length
      this.schedule()
    })
  }

  private schedule() {
    if (this.inFlight >= this.maxInFlight) return // a running flush picks the queue up when it ends
    if (this.queuedRecords >= this.opts.maxBatchRecords || this.opts.lingerMs === 0) {
      this.flushNow()
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flushNow(), this.opts.lingerMs)
    }
  }

  private flushNow() {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = null
    }
    if (this.queue.length === 0 || this.inFlight >= this.maxInFlight) return
    // Take whole requests only: one request's records never straddle two flushes.
    const batch: Pending[] = []
    let n = 0
    while (this.queue.length && (batch.length === 0 || n + this.queue[0].records.length <= this.opts.maxBatchRecords)) {
      const p = this.queue.shift()!
      n += p.records.length
      batch.push(p)
    }
    this.queuedRecords -= n
    this.inFlight++
    // Transactions need a producer of their own; plain sends may share one when the pool is smaller.
    const own = this.opts.transactional || this.free.length > 1
    const producer = own ? this.free.pop()! : this.free[0]
    this.send(producer, batch, n).finally(() => {
      if (own) this.free.push(producer)
      this.inFlight--
      // Lingering again (rather than flushing at once) also gives the broker time to finish the
      // last commit's markers: a transaction begun at once is refused CONCURRENT_TRANSACTIONS.
      if (this.queue.length) this.schedule()
      else if (this.inFlight === 0) this.idle.splice(0).forEach((f) => f())
    })
  }

  private async send(producer: Producer, batch: Pending[], n: number) {
    const byTopic = new Map<string, Message[]>()
    for (const p of batch) {
      for (const r of p.records) {
        let list = byTopic.get(r.topic)
        if (!list) byTopic.set(r.topic, (list = []))
        list.push({ key: r.key, value: r.value })
      }
    }
    const topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }))
    try {
      if (this.opts.transactional) {
        const txn = await producer.transaction()
        try {
          await txn.sendBatch({ topicMessages, acks: -1 })
          await txn.commit()
        } catch (err) {
          await txn.abort().catch((abortErr) => this.log.error('kafka transaction abort failed', { err: abortErr }))
          throw err
        }
      } else {
        await producer.sendBatch({ topicMessages, acks: -1 })
      }
      this.stats.flushes++
      this.stats.records += n
      for (const p of batch) p.resolve()
    } catch (err) {
      this.stats.failures++
      this.log.error('kafka append failed', { records: n, err })
      const e = new KafkaAppendError('Kafka did not acknowledge the records', { cause: err })
      for (const p of batch) p.reject(e)
    }
  }

  /** Stops taking records and waits until everything queued has been flushed. */
  async close(): Promise<void> {
    this.closed = true
    if (this.queue.length === 0 && this.inFlight === 0) return
    await new Promise<void>((resolve) => {
      this.idle.push(resolve)
      this.flushNow()
    })
  }
}
