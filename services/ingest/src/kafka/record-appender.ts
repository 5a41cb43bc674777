// Group commit for the ingest hot path (A4): records from concurrent requests are gathered for at
// most `lingerMs` (or until `maxBatchRecords`) and appended in one produce. With `transactional`,
// each flush is one Kafka transaction, so a request's records are all written or none are. Each
// request's promise settles only after the flush holding its records is acknowledged by all
// in-sync replicas (acks=all, idempotent producer).
//
// Why a producer never sends again after a failure (A4): kafkajs numbers each partition's
// records for the broker's duplicate detection, and when a produce request fails it rolls that
// sequence back. If the broker had in fact written the failed batch, the next batch reuses the
// same sequence numbers and the broker acknowledges it as a duplicate without storing it -- a 200
// for lost records -- or answers OUT_OF_ORDER_SEQUENCE_NUMBER forever. So:
//   - a producer carries one flush at a time (another flush would pick up the rolled-back numbers
//     between kafkajs's own retries, which resend the same records with the same numbers: safe);
//   - after a failed or timed-out flush the producer is retired and a new one (new producer id, or
//     a new epoch for the same transactional id, which fences the old one) takes its slot;
//   - the requests of the failed flush get 503: their records may or may not be stored, and the
//     client's retry with the same message_id is deduplicated (H16).
// The queue is bounded and every request has a deadline, so a stalled broker sheds load with 503
// instead of growing memory or holding requests open.
//
// A refusal of the records themselves (MESSAGE_TOO_LARGE and the like, H37) says nothing about Kafka's
// health: it fails only the request that caused it. A request whose records cannot fit the topic is
// answered 413 before it is sent (record-limits.ts); if Kafka still refuses a flush's records, each of
// its requests is sent again alone, so only the culprit fails. The producer is kept when the refused
// send routed records to one partition only: kafkajs rolled that partition's sequence back and the
// broker wrote nothing, so the numbers still agree. A send that touched several partitions may have
// written the others, so its producer is retired as above, but the instance stays ready.
import type { Producer, Message, RecordMetadata } from '../../../shared/src/kafka/client.js'
import type { Logger } from '../../../shared/src/log.js'
import { AppError } from '../../../shared/src/errors.js'
import { backoffDelay } from '../../../shared/src/retry.js'
import { realTimers, type Timers } from '../../../shared/src/timers.js'
import { routesOf, type RoutedPartitions } from './routed-partitions.js'
import { oversizedTopic, RECORD_OVERHEAD_BYTES } from './record-limits.js'

export interface OutRecord {
  topic: string
  key: string
  value: Buffer
}

export interface AppenderOptions {
  lingerMs: number
  maxBatchRecords: number
  /** Bytes (keys, values and record framing) per flush: a flush is one record batch per partition, and the broker
   * refuses a batch over the topic's max.message.bytes -- for every request in it. A single request
   * larger than this still goes, alone. */
  maxBatchBytes: number
  transactional: boolean
  /** Producers in the pool: flushes in flight at once (one per producer). */
  poolSize: number
  /** A request not acknowledged within this time (queued or in flight) gets a 503. */
  flushTimeoutMs: number
  /** Records waiting for a producer beyond which new requests are refused at once (503). */
  maxQueuedRecords: number
  /** Pause before a retired producer's replacement connects; doubles up to 16x while Kafka stays away. */
  reconnectBackoffMs?: number
  /** Told of every flush when it ends (metrics). */
  onFlush?: (records: number, seconds: number, ok: boolean) => void
}

/** Whether the records of a failed append may be on the log ('unknown') or certainly are not ('no'). */
export type StoredState = 'no' | 'unknown'

export class KafkaAppendError extends AppError {
  readonly code = 'KAFKA_APPEND_FAILED'
  constructor(
    message: string,
    readonly stored: StoredState,
    options?: { cause?: unknown },
  ) {
    super(message, { status: 503, retriable: true, cause: options?.cause })
  }
}

/** Kafka can never take these records: one key's records exceed the topic's max.message.bytes (H37).
 * Not stored, and a retry would fail the same way: 413. */
export class RecordsTooLargeError extends AppError {
  readonly code = 'RECORDS_TOO_LARGE'
  constructor(
    readonly topic: string,
    readonly limitBytes: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(`records for one key exceed what topic ${topic} takes${limitBytes ? ` (${limitBytes} bytes)` : ''}`, {
      status: 413,
      retriable: false,
      cause: options?.cause,
    })
  }
}

/** Broker answers that refuse a batch's records, not the producer or the connection (H37). */
const RECORD_REFUSALS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'INVALID_TIMESTAMP',
])
const SIZE_REFUSALS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE'])

/** The broker's refusal type when `err` (or an error it wraps) is a per-record refusal. */
export function recordRefusalOf(err: unknown): string | undefined {
  for (
    let e = err as { type?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.type === 'string' && RECORD_REFUSALS.has(e.type)) return e.type
  }
  return undefined
}

/** Creates a new, unconnected producer for slot `index` (the same transactional id for a slot). */
export type ProducerFactory = (index: number) => Producer

interface Pending {
  records: OutRecord[]
  bytes: number
  enqueuedAt: number
  resolve: () => void
  reject: (err: KafkaAppendError | RecordsTooLargeError) => void
  /** Sent in a flush of its own: set after Kafka refused a flush it was in (H37). */
  alone?: boolean
}

interface Slot {
  index: number
  producer: Producer | null
  state: 'idle' | 'busy' | 'down'
  /** Consecutive failed connects, for the backoff. */
  failures: number
}

export interface AppenderStats {
  flushes: number
  records: number
  failures: number
  timeouts: number
  retired: number
  /** Requests refused because the queue was full. */
  shed: number
  /** Requests that waited past their deadline without being sent. */
  expired: number
  /** Flushes whose records Kafka refused (MESSAGE_TOO_LARGE and the like), H37. */
  refused: number
}

export interface AppenderHealth {
  ready: boolean
  reason?: string
  producersUp: number
  queuedRecords: number
}

export class RecordAppender {
  private queue: Pending[] = []
  private queuedRecords = 0
  private inFlight = 0
  private lingerTimer: unknown = null
  private sweepTimer: unknown = null
  private closed = false
  private idle: Array<() => void> = []
  private upWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = []
  private readonly slots: Slot[]
  private lastFailureAt = 0
  private lastRecoveryAt = 0
  readonly stats: AppenderStats = {
    flushes: 0,
    records: 0,
    failures: 0,
    timeouts: 0,
    retired: 0,
    shed: 0,
    expired: 0,
    refused: 0,
  }
  /** max.message.bytes per topic, once known (useTopicLimits), and the smallest of them. */
  private topicLimits: ReadonlyMap<string, number> = new Map()
  private smallestLimit = Infinity
  private maxBatchBytes: number

  constructor(
    private readonly createProducer: ProducerFactory,
    private readonly opts: AppenderOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** The linger, deadline, reconnect and sweep timers; tests pass manual ones (test/support/manual-timers.ts). */
    private readonly timers: Timers = realTimers,
  ) {
    if (opts.poolSize < 1) throw new RangeError('RecordAppender needs at least one producer')
    this.maxBatchBytes = opts.maxBatchBytes
    this.slots = Array.from({ length: opts.poolSize }, (_, index) => ({
      index,
      producer: null,
      state: 'down' as const,
      failures: 0,
    }))
  }

  /** Connects every producer and resolves once at least one is connected: producers that cannot
   * connect keep trying in the background, so this waits out a Kafka that is not there yet.
   * Rejects only if the appender is closed first. */
  async start(): Promise<void> {
    await Promise.allSettled(this.slots.map((s) => this.connectSlot(s)))
    for (const s of this.slots) if (s.state === 'down') this.reconnectLater(s)
    if (this.slots.some((s) => s.state !== 'down')) return
    if (this.closed) throw new KafkaAppendError('closed before Kafka was reached', 'no')
    await new Promise<void>((resolve, reject) => this.upWaiters.push({ resolve, reject }))
  }

  /** What the topics take (checked at start, record-limits.ts): requests that cannot fit are refused
   * before they are sent, and flushes are capped at `maxBatchBytes`. */
  useTopicLimits(limits: ReadonlyMap<string, number>, maxBatchBytes: number): void {
    this.topicLimits = limits
    this.smallestLimit = Math.min(...limits.values())
    this.maxBatchBytes = Math.min(this.opts.maxBatchBytes, maxBatchBytes)
  }

  append(records: OutRecord[]): Promise<void> {
    if (this.closed) return Promise.reject(new KafkaAppendError('the service is shutting down', 'no'))
    if (records.length === 0) return Promise.resolve()
    const over = this.topicLimits.size ? oversizedTopic(records, this.topicLimits, this.smallestLimit) : undefined
    if (over) return Promise.reject(new RecordsTooLargeError(over.topic, over.limitBytes))
    if (this.queuedRecords > 0 && this.queuedRecords + records.length > this.opts.maxQueuedRecords) {
      this.stats.shed++
      return Promise.reject(new KafkaAppendError('the append queue is full', 'no'))
    }
    return new Promise<void>((resolve, reject) => {
      // As Kafka measures the batch, framing included (record-limits.ts), so a flush under the cap fits a
      // topic whose max.message.bytes the cap was lowered to (H37).
      let bytes = 0
      for (const r of records) bytes += r.value.length + r.key.length + RECORD_OVERHEAD_BYTES
      this.queue.push({ records, bytes, enqueuedAt: this.now(), resolve, reject })
      this.queuedRecords += records.length
      this.armSweep()
      this.schedule()
    })
  }

  health(): AppenderHealth {
    const producersUp = this.slots.filter((s) => s.state !== 'down').length
    const base = { producersUp, queuedRecords: this.queuedRecords }
    if (this.closed) return { ready: false, reason: 'shutting down', ...base }
    if (producersUp === 0) return { ready: false, reason: 'no Kafka producer is connected', ...base }
    if (this.lastFailureAt > this.lastRecoveryAt)
      return { ready: false, reason: 'the last append to Kafka failed', ...base }
    return { ready: true, ...base }
  }

  private schedule() {
    if (this.queue.length === 0) return
    if (!this.slots.some((s) => s.state === 'idle')) return // a flush or reconnect picks the queue up when it ends
    if (this.queuedRecords >= this.opts.maxBatchRecords || this.opts.lingerMs === 0 || this.closed) {
      this.flushNow()
    } else if (!this.lingerTimer) {
      this.lingerTimer = this.timers.setTimeout(() => this.flushNow(), this.opts.lingerMs)
    }
  }

  private flushNow() {
    if (this.lingerTimer) {
      this.timers.clearTimeout(this.lingerTimer)
      this.lingerTimer = null
    }
    const slot = this.slots.find((s) => s.state === 'idle')
    if (this.queue.length === 0 || !slot) return
    // A request with almost no time left is answered 503 unsent rather than sent on a deadline
    // it cannot meet (which would only retire a healthy producer).
    this.sweep(this.minSendMs())
    if (this.queue.length === 0) return
    // Take whole requests only: one request's records never straddle two flushes.
    const batch: Pending[] = []
    let n = 0
    let bytes = 0
    while (
      this.queue.length &&
      (batch.length === 0 ||
        (!this.queue[0].alone &&
          n + this.queue[0].records.length <= this.opts.maxBatchRecords &&
          bytes + this.queue[0].bytes <= this.maxBatchBytes))
    ) {
      const p = this.queue.shift()!
      n += p.records.length
      bytes += p.bytes
      batch.push(p)
      if (p.alone) break
    }
    this.queuedRecords -= n
    slot.state = 'busy'
    this.inFlight++
    void this.send(slot, batch, n).finally(() => {
      this.inFlight--
      if (this.queue.length) this.schedule()
      else this.disarmSweep()
      this.settleIdle()
    })
    // Other idle producers take the rest of the queue at once.
    if (this.queue.length) this.schedule()
  }

  private async send(slot: Slot, batch: Pending[], n: number): Promise<void> {
    const producer = slot.producer!
    const topicMessages = groupByTopic(batch)
    // The deadline runs from the oldest request's arrival, so no request waits past flushTimeoutMs.
    const deadline = batch[0].enqueuedAt + this.opts.flushTimeoutMs
    const sentAt = performance.now()
    try {
      await withDeadline(
        this.timers,
        this.produce(producer, topicMessages, Math.max(1000, deadline - this.now())),
        deadline - this.now(),
        () => new FlushTimeout(),
      )
      this.stats.flushes++
      this.stats.records += n
      this.opts.onFlush?.(n, (performance.now() - sentAt) / 1000, true)
      this.lastRecoveryAt = Math.max(this.lastRecoveryAt, this.now())
      slot.state = 'idle'
      for (const p of batch) p.resolve()
    } catch (err) {
      const timedOut = err instanceof FlushTimeout
      const refusal = timedOut ? undefined : recordRefusalOf(err)
      if (refusal) return this.refused(slot, batch, n, refusal, err, (performance.now() - sentAt) / 1000)
      this.stats.failures++
      if (timedOut) this.stats.timeouts++
      this.opts.onFlush?.(n, (performance.now() - sentAt) / 1000, false)
      this.lastFailureAt = this.now()
      this.log.error(timedOut ? 'kafka append timed out; producer retired' : 'kafka append failed; producer retired', {
        records: n,
        producer: slot.index,
        err: timedOut ? undefined : err,
      })
      const e = new KafkaAppendError(
        timedOut ? 'Kafka did not acknowledge the records in time' : 'Kafka did not acknowledge the records',
        'unknown',
        { cause: err },
      )
      for (const p of batch) p.reject(e)
      this.retire(slot)
    }
  }

  /** Kafka refused the flush's records (H37): only the request that caused it fails; the instance stays
   * ready, and the producer is kept when the send touched one partition (nothing was written). */
  private refused(slot: Slot, batch: Pending[], n: number, refusal: string, err: unknown, seconds: number): void {
    this.stats.refused++
    this.opts.onFlush?.(n, seconds, false)
    const routed = slot.producer ? routesOf(slot.producer)?.partitionCount() : undefined
    const keep = routed === 1
    this.log.warn(
      `kafka refused a flush's records (${refusal}); ${batch.length > 1 ? 'its requests are sent again one by one' : 'its request fails'}`,
      {
        records: n,
        requests: batch.length,
        producer: slot.index,
        kept: keep,
        err,
      },
    )
    if (batch.length > 1) {
      for (const p of batch) p.alone = true
      this.queue.unshift(...batch)
      this.queuedRecords += n
    } else {
      const p = batch[0]
      const topic = p.records[0].topic
      p.reject(
        SIZE_REFUSALS.has(refusal)
          ? new RecordsTooLargeError(topic, this.topicLimits.get(topic), { cause: err })
          : new KafkaAppendError(`Kafka refused the records (${refusal})`, keep ? 'no' : 'unknown', { cause: err }),
      )
    }
    if (keep) slot.state = 'idle'
    else this.retire(slot)
  }

  private async produce(
    producer: Producer,
    topicMessages: Array<{ topic: string; messages: Message[] }>,
    timeoutMs: number,
  ) {
    const routes = routesOf(producer)
    routes?.reset()
    if (!this.opts.transactional) {
      checkAnswered(routes, await producer.sendBatch({ topicMessages, acks: -1, timeout: timeoutMs }))
      return
    }
    const txn = await producer.transaction()
    try {
      // Checked before the commit: a transaction missing a partition's records must not commit.
      checkAnswered(routes, await txn.sendBatch({ topicMessages, acks: -1, timeout: timeoutMs }))
      await txn.commit()
    } catch (err) {
      // The producer is retired anyway; its replacement's new epoch aborts a transaction left open.
      await txn.abort().catch((abortErr) => this.log.warn('kafka transaction abort failed', { err: abortErr }))
      throw err
    }
  }

  /** The slot's producer never sends again; a new one is connected in its place. */
  private retire(slot: Slot) {
    const old = slot.producer
    slot.producer = null
    slot.state = 'down'
    this.stats.retired++
    if (old) old.disconnect().catch((err) => this.log.debug('retired producer did not disconnect cleanly', { err }))
    this.reconnectLater(slot)
  }

  private reconnectLater(slot: Slot) {
    if (this.closed) return
    // H68's backoff: the base, doubling with each failed connect of this slot, up to 16 times the base.
    const base = this.opts.reconnectBackoffMs ?? 200
    const wait = backoffDelay(slot.failures + 1, { initialMs: base, maxMs: base * 16, jitter: false })
    this.timers.setTimeout(() => {
      if (this.closed) return this.settleIdle()
      this.connectSlot(slot).then(
        () => {
          this.log.info('kafka producer replaced', { producer: slot.index })
          this.schedule()
          this.settleIdle()
        },
        (err) => {
          this.log.warn('kafka producer could not connect; retrying', { producer: slot.index, err })
          this.reconnectLater(slot)
        },
      )
    }, wait)
  }

  private async connectSlot(slot: Slot): Promise<void> {
    const producer = this.createProducer(slot.index)
    try {
      await withDeadline(
        this.timers,
        producer.connect(),
        this.opts.flushTimeoutMs,
        () => new Error('kafka producer connect timed out'),
      )
    } catch (err) {
      slot.failures++
      producer.disconnect().catch(() => undefined)
      throw err
    }
    slot.failures = 0
    slot.producer = producer
    slot.state = 'idle'
    this.lastRecoveryAt = this.now()
    this.upWaiters.splice(0).forEach((w) => w.resolve())
  }

  private minSendMs(): number {
    return Math.min(250, this.opts.flushTimeoutMs / 4)
  }

  /** Requests still queued past their deadline (less `marginMs`) were never sent: 503, certainly not stored. */
  private sweep(marginMs = 0) {
    const limit = this.now() - this.opts.flushTimeoutMs + marginMs
    let expired = 0
    while (this.queue.length && this.queue[0].enqueuedAt <= limit) {
      const p = this.queue.shift()!
      this.queuedRecords -= p.records.length
      this.stats.expired++
      expired++
      p.reject(new KafkaAppendError('no Kafka producer could take the records in time', 'no'))
    }
    if (expired) this.log.warn('requests expired waiting for a Kafka producer', { requests: expired })
    if (this.queue.length === 0) this.disarmSweep()
    this.settleIdle()
  }

  private armSweep() {
    if (this.sweepTimer) return
    // A timeout set again after each sweep: Timers has no interval, and only one is armed at a time.
    const every = Math.max(50, Math.min(500, this.opts.flushTimeoutMs / 4))
    const tick = () => {
      this.sweepTimer = this.timers.setTimeout(tick, every)
      this.sweep()
    }
    this.sweepTimer = this.timers.setTimeout(tick, every)
  }

  private disarmSweep() {
    if (this.sweepTimer) this.timers.clearTimeout(this.sweepTimer)
    this.sweepTimer = null
  }

  private settleIdle() {
    if (this.queue.length === 0 && this.inFlight === 0) this.idle.splice(0).forEach((f) => f())
  }

  /** Stops taking records, flushes what is queued (each request still bounded by its deadline),
   * then disconnects every producer. */
  async close(): Promise<void> {
    this.closed = true
    this.upWaiters.splice(0).forEach((w) => w.reject(new KafkaAppendError('closed before Kafka was reached', 'no')))
    if (this.queue.length || this.inFlight) {
      await new Promise<void>((resolve) => {
        this.idle.push(resolve)
        this.flushNow()
      })
    }
    this.disarmSweep()
    await Promise.all(
      this.slots.map(async (s) => {
        const p = s.producer
        s.producer = null
        s.state = 'down'
        await p?.disconnect().catch(() => undefined)
      }),
    )
  }
}

/** `work`, or the error of `onTimeout` after `ms` (at least 1). Work that settles after the
 * deadline is ignored: its caller has already answered. */
async function withDeadline<T>(timers: Timers, work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  work.catch(() => undefined)
  let timer: unknown
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = timers.setTimeout(() => reject(onTimeout()), Math.max(1, ms))
      }),
    ])
  } finally {
    if (timer !== undefined) timers.clearTimeout(timer)
  }
}

class FlushTimeout extends AppError {
  readonly code = 'FLUSH_TIMEOUT'
  constructor() {
    super('flush timed out', { status: 503, retriable: true })
  }
}

function groupByTopic(batch: Pending[]): Array<{ topic: string; messages: Message[] }> {
  const byTopic = new Map<string, Message[]>()
  for (const p of batch) {
    for (const r of p.records) {
      let list = byTopic.get(r.topic)
      if (!list) byTopic.set(r.topic, (list = []))
      list.push({ key: r.key, value: r.value })
    }
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }))
}

/** A send that kafkajs resolved without an answer for a partition it routed records to did not
 * store those records (routed-partitions.ts): fail the flush rather than acknowledge them. */
function checkAnswered(routes: RoutedPartitions | undefined, answer: RecordMetadata[] | undefined): void {
  const missing = routes?.missingFrom(answer) ?? []
  if (missing.length)
    throw new Error(`kafka answered the send without ${missing.join(', ')}: those records were not sent`)
}
