// Test helper: the keys topic made to forget in seconds (A17's test settings, docs/privacy.md).
import type { Kafka } from '../../services/shared/src/kafka/client.js'
import { ConfigResourceTypes } from '../../services/shared/src/kafka/client.js'
import { keysTopicConfig } from '../../services/shared/src/kafka.js'

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
