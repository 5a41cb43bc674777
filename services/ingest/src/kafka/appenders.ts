// The appenders a request's records go to (A4), made at the edge from the Kafka client: a plain lane
// (idempotent producers) and, with transactions on, an atomic lane (transactional producers) that
// lane-router.ts sends only the requests spanning several partitions to.
import type { Kafka } from '../../../shared/src/kafka/client.js'
import type { Logger } from '../../../shared/src/log.js'
import type { IngestConfig } from '../config.js'
import type { IngestMetrics } from '../http/metrics.js'
import { RecordAppender } from './record-appender.js'
import { LaneRouter } from './lane-router.js'
import { planFlushes } from './record-limits.js'
import { CachedDefaultPartitioner } from './partitioner.js'
import { RoutedPartitions, withRoutes } from './routed-partitions.js'

export interface Appenders {
  appender: RecordAppender | LaneRouter
  /** H37: what the topics take bounds the flushes and each request (413 before sending); then connects. */
  start(maxMessageBytes: ReadonlyMap<string, number>, log: Logger): Promise<void>
}

type AppenderConfig = Pick<IngestConfig, 'producer' | 'instanceId'>

export function createAppenders(kafka: Kafka, cfg: AppenderConfig, metrics: IngestMetrics, log: Logger): Appenders {
  const p = cfg.producer
  const common = {
    lingerMs: p.lingerMs,
    maxBatchRecords: p.maxBatchRecords,
    maxBatchBytes: p.maxBatchBytes,
    flushTimeoutMs: p.flushTimeoutMs,
    maxQueuedRecords: p.maxQueuedRecords,
  }
  // Requests that land in one partition are atomic without a transaction (lane-router.ts); with
  // transactions off, every request takes the plain lane.
  const plain = new RecordAppender(
    () => producerOf(kafka),
    {
      ...common,
      transactional: false,
      poolSize: p.plainPoolSize,
      onFlush: (n, s, ok) => metrics.flush('plain', n, s, ok),
    },
    log,
  )
  // Slot i of the transactional pool keeps one transactional id, so the replacement's new epoch
  // fences the retired producer.
  const transactionalId = (i: number) => (i === 0 ? cfg.instanceId : `${cfg.instanceId}-${i}`)
  const atomic = p.transactional
    ? new RecordAppender(
        (i) => producerOf(kafka, transactionalId(i)),
        {
          ...common,
          transactional: true,
          poolSize: p.poolSize,
          onFlush: (n, s, ok) => metrics.flush('transactional', n, s, ok),
        },
        log,
      )
    : undefined
  return {
    appender: atomic ? new LaneRouter(plain, atomic) : plain,
    async start(maxMessageBytes, log) {
      const flushes = planFlushes(maxMessageBytes, p.maxBatchBytes)
      for (const w of flushes.warnings) log.warn(w)
      for (const lane of [plain, atomic]) lane?.useTopicLimits(maxMessageBytes, flushes.maxBatchBytes)
      await Promise.all([plain.start(), atomic?.start()])
    },
  }
}

// A transaction begun right after the previous commit is refused with CONCURRENT_TRANSACTIONS until
// the broker has written the commit markers (a few ms); kafkajs retries the whole send with this
// policy, so a short first step matters (bench/HISTORY.md). The Java client backs off 20 ms.
const RETRY = { initialRetryTime: 10, maxRetryTime: 1000, retries: 10 }

/** Producers are made by factories, not once: a producer whose send failed is replaced
 *  (record-appender.ts). Each records where its records went, so a send kafkajs resolves without
 *  sending some of them fails instead of being acknowledged (routed-partitions.ts). */
function producerOf(kafka: Kafka, transactionalId?: string) {
  const routes = new RoutedPartitions()
  return withRoutes(
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      transactionalId,
      createPartitioner: routes.wrap(CachedDefaultPartitioner),
      retry: RETRY,
    }),
    routes,
  )
}
