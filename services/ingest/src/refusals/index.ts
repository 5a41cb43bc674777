// Refused requests per account (H65, H66): the aggregator the error middleware records into, and the
// producer that drains it onto TOPIC_REFUSALS. Built at the edge (main.ts); connected in start().
import type { Codec } from '../../../../schemas/codec.js'
import { createProducer, type Kafka } from '../../../shared/src/kafka/client.js'
import type { Logger } from '../../../shared/src/log.js'
import type { IngestConfig } from '../config.js'
import type { IngestMetrics } from '../http/metrics.js'
import { RefusalAggregator } from './refusal-aggregator.js'
import { RefusalPublisher } from './refusal-publisher.js'

export { RefusalAggregator } from './refusal-aggregator.js'

/** Bounds one drain's send: a refusal batch is dropped, not waited for, when Kafka is slow (H66). */
const SEND_TIMEOUT_MS = 5_000

export function createRefusals(kafka: Kafka, codec: Codec, cfg: IngestConfig, metrics: IngestMetrics, log: Logger) {
  const aggregator = new RefusalAggregator(Date.now)
  const topic = cfg.topics.refusals!
  // Its own producer, not the event appender's: refusal records never share a queue or a flush with
  // records a 200 waits for (A4). acks=1: best effort, and one broker's word is enough for it.
  const producer = createProducer(kafka, { retry: { retries: 1 } })
  const publisher = new RefusalPublisher({
    aggregator,
    send: async (messages) => void (await producer.send({ topic, acks: 1, timeout: SEND_TIMEOUT_MS, messages })),
    encode: (r) => codec.encode('Refusals', r),
    instanceId: cfg.instanceId,
    now: Date.now,
    log,
    onDrain: (o) => metrics.refusalDrain(o),
  })
  return {
    aggregator,
    async start() {
      await producer.connect()
      publisher.start(cfg.refusalsFlushMs)
    },
    /** Writes what is held, once, then disconnects. */
    async close() {
      await publisher.close()
      await producer.disconnect()
    },
  }
}
