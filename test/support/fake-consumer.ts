// A stand-in for the Kafka client's consumer side at the surface the projector uses (consume/
// projector.ts: consumer(), its events, connect, subscribe, run with eachBatch, commitOffsets, pause,
// disconnect), so the consume loop's epochs, poison records, restarts and drain run in unit tests.
// The one place to adapt when the projector's Kafka port changes. A test plays the broker: it
// joins the group (`join()`), hands batches to eachBatch (`deliver()`) and reads the commits.
import type { EachBatchPayload, KafkaMessage } from '../../services/shared/src/kafka/client.js'

const EVENTS = {
  GROUP_JOIN: 'consumer.group_join',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  CRASH: 'consumer.crash',
  FETCH: 'consumer.fetch',
} as const

export class FakeConsumer {
  readonly events = EVENTS
  readonly commits: Array<{ topic: string; partition: number; offset: string }> = []
  readonly resolved: string[] = []
  subscribed: string[] = []
  paused = false
  disconnected = false
  /** disconnect() was called (it resolves once the batches in eachBatch have returned). */
  disconnecting = false
  private readonly inFlight = new Set<Promise<void>>()
  private readonly handlers = new Map<string, Array<(e: any) => void>>()
  private eachBatch?: (p: EachBatchPayload) => Promise<void>

  on(event: string, fn: (e: any) => void) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn])
    return () => undefined
  }
  async connect() {}
  async subscribe(o: { topics: string[] }) {
    this.subscribed = o.topics
  }
  async run(o: { eachBatch: (p: EachBatchPayload) => Promise<void> }) {
    this.eachBatch = o.eachBatch
  }
  async commitOffsets(offsets: Array<{ topic: string; partition: number; offset: string }>) {
    this.commits.push(...offsets)
  }
  pause() {
    this.paused = true
  }
  /** As the client's: leaves once the batches being processed have returned (kafkajs waits for a
   *  running eachBatch before it leaves the group). */
  async disconnect() {
    this.disconnecting = true
    this.disconnected = true
    await Promise.allSettled([...this.inFlight])
  }

  /** The group assigned partitions to this member: a new epoch for the projector. */
  join() {
    this.emit(EVENTS.GROUP_JOIN, {})
  }

  /** The client's other instrumentation events: `consumer.crash` with `{ error }`, `consumer.fetch`. */
  emit(event: (typeof EVENTS)[keyof typeof EVENTS], payload: Record<string, unknown>) {
    for (const fn of this.handlers.get(event) ?? []) fn({ payload })
  }

  /** One fetched batch of `values` from `firstOffset` on; resolves when eachBatch returns. */
  deliver(topic: string, partition: number, firstOffset: number, values: Buffer[]): Promise<void> {
    if (!this.eachBatch) throw new Error('deliver before run()')
    const messages = values.map(
      (value, i) =>
        ({
          offset: String(firstOffset + i),
          key: Buffer.from('k'),
          value,
          timestamp: '0',
          attributes: 0,
          headers: {},
        }) as KafkaMessage,
    )
    const last = String(firstOffset + values.length - 1)
    const batch = {
      topic,
      partition,
      messages,
      highWatermark: String(firstOffset + values.length),
      lastOffset: () => last,
    }
    const running = this.eachBatch({
      batch,
      resolveOffset: (o: string) => void this.resolved.push(o),
      heartbeat: async () => undefined,
      isRunning: () => !this.disconnected && !this.paused,
      isStale: () => false,
    } as unknown as EachBatchPayload)
    this.inFlight.add(running)
    void running.finally(() => this.inFlight.delete(running)).catch(() => undefined)
    return running
  }
}

/** Hands out a fresh FakeConsumer per consumer() call, as a client does for each (re)start. */
export class FakeKafka {
  readonly consumers: FakeConsumer[] = []
  consumer() {
    const c = new FakeConsumer()
    this.consumers.push(c)
    return c
  }
  get current(): FakeConsumer {
    return this.consumers[this.consumers.length - 1]!
  }
}
