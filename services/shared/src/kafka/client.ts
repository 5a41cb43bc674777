// The Kafka port (A11): the one module that imports kafkajs. Services, scripts, the bench and the
// tests take the client, its types and the few kafkajs values they use from here, so the client is
// ours to own: kafkajs is the vendored copy in packages/kafkajs (its CHANGES.md lists how it differs
// from upstream 2.2.4), and test/architecture/boundaries.test.ts fails if any other file imports it.
import kafkajs, { Kafka, logLevel, type KafkaConfig, type ProducerConfig, type Producer } from 'kafkajs'
import type { Logger } from '../log.js'
import type { CommonConfig } from '../env.js'
import { socketFactoryFor } from './framed-socket.js'

export type {
  Admin,
  Consumer,
  ConsumerEndBatchProcessEvent,
  EachBatchPayload,
  ICustomPartitioner,
  ITopicConfig,
  KafkaMessage,
  Message,
  PartitionerArgs,
  Producer,
  ProducerConfig,
  RecordMetadata,
} from 'kafkajs'

/** The client: brokers, and the factory of producers, consumers and admins. */
export type { Kafka }
export { logLevel }

// kafkajs is CommonJS and spreads its error classes and enums into its exports, which Node's named-
// import detection does not see; they are taken from the default export.
/** kafkajs's error classes the services tell apart (unavailable.ts). */
export const KafkaErrors = {
  ProtocolError: kafkajs.KafkaJSProtocolError,
  SASLAuthenticationError: kafkajs.KafkaJSSASLAuthenticationError,
  ConnectionError: kafkajs.KafkaJSConnectionError,
  NumberOfRetriesExceeded: kafkajs.KafkaJSNumberOfRetriesExceeded,
} as const
export const { CompressionTypes, ConfigResourceTypes } = kafkajs
/** kafkajs's default (Java-compatible murmur2) partitioner, which every producer uses (A3). */
export const defaultPartitioner = kafkajs.Partitioners.DefaultPartitioner

/** The client this process runs: the vendored kafkajs says so (packages/kafkajs/vendored.js); an npm
 * copy has no marker. Reported as `<service>_kafka_client_info` (client-info.ts). */
export const kafkaClientInfo = {
  version: kafkajs.vendored?.upstreamVersion ?? 'unknown',
  vendored: kafkajs.vendored !== undefined,
} as const

/** A client with the given options, nothing else: for tests that point one at a dead broker. */
export function createKafkaClient(config: KafkaConfig): Kafka {
  return new Kafka(config)
}

/** A producer with the default partitioner (options may replace it). */
export function createProducer(kafka: Kafka, options: ProducerConfig = {}): Producer {
  return kafka.producer({ createPartitioner: defaultPartitioner, ...options })
}

/** The services' client: brokers and credentials from config, kafkajs's log into ours. */
export function createKafka(cfg: CommonConfig['kafka'], log: Logger): Kafka {
  const toLog = (level: logLevel) =>
    level === logLevel.ERROR ? 'error' : level === logLevel.WARN ? 'warn' : level === logLevel.INFO ? 'info' : 'debug'
  // Which client this process runs (A11), in every service's log: the dashboard has no metrics.
  const client = { clientId: cfg.clientId, kafkajs: kafkaClientInfo.version, vendored: kafkaClientInfo.vendored }
  if (kafkaClientInfo.vendored) log.info('kafka client', client)
  else log.warn('kafka client is not the vendored kafkajs (packages/kafkajs): run npm ci', client)
  return new Kafka({
    clientId: cfg.clientId,
    brokers: cfg.brokers,
    // Credentials pass through from config (KAFKA_SSL, KAFKA_SASL_*); none on the local stack.
    ssl: cfg.ssl,
    ...(cfg.sasl ? { sasl: cfg.sasl as KafkaConfig['sasl'] } : {}),
    // A38: each response read whole into one Buffer; TLS and SASL keep kafkajs's socket.
    socketFactory: socketFactoryFor(cfg),
    logLevel: logLevel.WARN,
    retry: { initialRetryTime: 100, retries: 8 },
    logCreator:
      () =>
      ({ namespace, level, log: entry }) => {
        const { message, timestamp: _t, logger: _l, ...rest } = entry as Record<string, unknown>
        // kafkajs warns loudly about rebalances it handles itself and about its partitioner change;
        // nothing else is hidden (its producer warnings are how a durability problem shows first).
        if (level === logLevel.WARN && /rebalanc|partitioner/i.test(String(message))) return
        // Retriable broker answers (a coordinator loading, a transaction still completing) are retried
        // by kafkajs; not errors for us.
        if (
          namespace === 'Connection' &&
          /coordinator|not available|loading|leader|concurrent/i.test(String(rest.error))
        ) {
          log.debug(`kafka: ${message}`, { namespace, ...rest })
          return
        }
        log[toLog(level)](`kafka: ${message}`, { namespace, ...rest })
      },
  })
}
