// Test helpers: a keys topic of a test's own, and the keys topic made to forget in seconds (A17's test
// settings, docs/privacy.md).
import type { Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { type ProjectorConfig, loadProjectorConfig } from '../../services/projector/src/config.js'
import type { Kafka } from '../../services/shared/src/kafka/client.js'
import { ConfigResourceTypes, createKafka } from '../../services/shared/src/kafka/client.js'
import { keysTopicConfig } from '../../services/shared/src/kafka.js'
import { createLogger } from '../../services/shared/src/log.js'
import { isolatedEnv } from '../support/harness.js'

/** The services' environment for it: rolled and cleanable after 1 s, tombstones dropped at the next clean. */
export const FAST_KEYS_ENV = {
  PRIVACY_ENCRYPT: 'true',
  KEYS_MAX_COMPACTION_LAG_MS: '1000',
  KEYS_DELETE_RETENTION_MS: '0',
  ERASURE_DISK_CHECK_MS: '500',
}

/** Adds what the services do not set: any dirt is worth a clean, replaced files deleted after 1 s. The
 *  legacy AlterConfigs replaces a topic's whole config, so the created settings are given again. */
export async function makeKeysTopicFast(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  const isr = { name: 'min.insync.replicas', value: '1' }
  try {
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [
            ...keysTopicConfig({ maxCompactionLagMs: 1000, deleteRetentionMs: 0 }, isr),
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
            { name: 'file.delete.delay.ms', value: '1000' },
          ],
        },
      ],
    })
  } finally {
    await admin.disconnect()
  }
}

/** A keys topic of the test's own (one partition, as A15's) on the stack, with the projector config and a
 *  Kafka client to reach it; deleted when the test ends. */
export async function ownKeysTopic(t: Test): Promise<{ cfg: ProjectorConfig; kafka: Kafka; topic: string }> {
  const suffix = randomBytes(5).toString('hex')
  const cfg = loadProjectorConfig(isolatedEnv(suffix))
  const kafka = createKafka({ ...cfg.kafka, clientId: `test-${suffix}` }, createLogger('error'))
  const topic = `test.${suffix}.keys`
  const admin = kafka.admin()
  await admin.connect()
  t.teardown(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined)
    await admin.disconnect()
  })
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
  return { cfg, kafka, topic }
}
