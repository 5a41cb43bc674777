// What every process that touches the log does first: a Kafka client named for its role, the
// topics of A3 created when missing, and the Avro schemas registered (A2) so ids are cached.
// Kafka and the registry are waited for (waitFor): a service started while either is down waits,
// says so in its log and its readiness, and carries on when they answer (H27).
import type { Kafka } from './kafka/client.js'
import { Codec, createRegistry } from '../../../schemas/codec.js'
import { createKafka, ensureTopics, topicMaxMessageBytes } from './kafka.js'
import type { CommonConfig } from './env.js'
import type { Logger } from './log.js'
import { isKafkaUnavailable, isRegistryUnavailable } from './unavailable.js'
import { waitFor, type WaitOptions } from './wait-for.js'

/** How long to wait and whom to tell; signal ends the waits (the service is stopping). */
export type EventLogWaitOptions = Pick<WaitOptions, 'signal' | 'readiness' | 'initialMs' | 'maxMs'>

/** The clients, built at the edge without I/O. */
export function createEventLogClients(cfg: CommonConfig, role: string, log: Logger): { kafka: Kafka; codec: Codec } {
  const kafka = createKafka({ ...cfg.kafka, clientId: `${cfg.kafka.clientId}-${role}` }, log)
  return { kafka, codec: new Codec(createRegistry(cfg.registryUrl, cfg.registryAuth)) }
}

/** What the event topics take: each one's max.message.bytes (the largest record batch the broker accepts). */
export interface EventLogLimits {
  maxMessageBytes: Map<string, number>
}

/** Creates missing topics (waiting for Kafka: readiness 'kafka'), reads the event topics' size limits,
 * and registers the schemas (waiting for the registry: readiness 'registry'). */
export async function prepareEventLog(
  kafka: Kafka,
  codec: Codec,
  cfg: CommonConfig,
  log: Logger,
  opts: EventLogWaitOptions = {},
): Promise<EventLogLimits> {
  const limits = await waitFor(
    'kafka',
    async () => {
      const admin = kafka.admin()
      await admin.connect()
      try {
        const created = await ensureTopics(admin, cfg.topics, {
          partitions: cfg.topicPartitions,
          replicationFactor: cfg.topicReplication.factor,
          minInsyncReplicas: cfg.topicReplication.minInsync,
          keys: cfg.keysTopic,
        })
        if (created.length) log.info('topics created', { topics: created })
        // Existing topics are never changed, so what they take is read, not assumed (ingest checks it).
        return { maxMessageBytes: await topicMaxMessageBytes(admin, [cfg.topics.events, cfg.topics.identifies]) }
      } finally {
        await admin.disconnect()
      }
    },
    log,
    { ...opts, retryIf: isKafkaUnavailable },
  )
  await waitFor('registry', () => codec.register(cfg.topics), log, { ...opts, retryIf: isRegistryUnavailable })
  return limits
}

/** Both of the above: what a service or CLI calls first. Resolves once Kafka and the registry answered. */
export async function openEventLog(
  cfg: CommonConfig,
  role: string,
  log: Logger,
  opts: EventLogWaitOptions = {},
): Promise<{ kafka: Kafka; codec: Codec }> {
  const clients = createEventLogClients(cfg, role, log)
  await prepareEventLog(clients.kafka, clients.codec, cfg, log, opts)
  return clients
}
