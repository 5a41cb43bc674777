// What every process that touches the log does first: a Kafka client named for its role, the
// topics of A3 created when missing, and the Avro schemas registered (A2) so ids are cached.
import type { Kafka } from 'kafkajs'
import { Codec, createRegistry } from '../../../schemas/codec.js'
import { createKafka, ensureTopics } from './kafka.js'
import type { CommonConfig } from './env.js'
import type { Logger } from './log.js'

export async function openEventLog(cfg: CommonConfig, role: string, log: Logger): Promise<{ kafka: Kafka; codec: Codec }> {
  const kafka = createKafka({ ...cfg.kafka, clientId: `${cfg.kafka.clientId}-${role}` }, log)
  const admin = kafka.admin()
  await admin.connect()
  try {
    const created = await ensureTopics(admin, cfg.topics, cfg.topicPartitions)
    if (created.length) log.info('topics created', { topics: created })
  } finally {
    await admin.disconnect()
  }
  const codec = new Codec(createRegistry(cfg.registryUrl, cfg.registryAuth))
  await codec.register(cfg.topics)
  return { kafka, codec }
}
