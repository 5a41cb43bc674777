// Topic setup, at the edge; the client itself comes from the Kafka port (kafka/client.ts, A11).
import { ConfigResourceTypes, type Admin, type ITopicConfig } from './kafka/client.js'
import type { CommonConfig } from './env.js'
import { AppError } from './errors.js'
import { retry } from './retry.js'

export { createKafka } from './kafka/client.js'

/** The broker refused the topics as asked (a replication factor above the broker count, a bad
 * config value): waiting will not change its answer. */
export class TopicConfigError extends AppError {
  readonly code = 'TOPIC_CONFIG_REFUSED'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { retriable: false, cause: options?.cause })
  }
}

export interface TopicLayout {
  partitions: number
  replicationFactor: number
  minInsyncReplicas: number
  /** Largest record batch the event topics take (default 32 MiB). */
  maxMessageBytes?: number
  /** A15: how the keys topic forgets a tombstoned key; defaults 23 h and 1 h (24 h in all). */
  keys?: { maxCompactionLagMs: number; deleteRetentionMs: number }
}

/** A15: a tombstoned data key is gone from the disks within max.compaction.lag.ms + delete.retention.ms
 *  (the cleaner's own backoff aside); the segments roll at least that often so the cleaner may take them. */
export function keysTopicConfig(keys: TopicLayout['keys'], isr: { name: string; value: string }) {
  const lag = keys?.maxCompactionLagMs ?? 23 * 3600_000
  return [
    { name: 'cleanup.policy', value: 'compact' },
    { name: 'max.compaction.lag.ms', value: String(lag) },
    { name: 'segment.ms', value: String(lag) },
    { name: 'delete.retention.ms', value: String(keys?.deleteRetentionMs ?? 3600_000) },
    isr,
  ]
}

export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024

/** Creates the topics of A3 when missing: the accounts topic compacted with one partition
 * (a total order of account changes), the others with `partitions` partitions and no retention
 * limit; all with the configured replication, and `min.insync.replicas` so that acks=all means
 * that many copies. Topics that already exist are left as they are. */
export async function ensureTopics(
  admin: Admin,
  topics: CommonConfig['topics'],
  layout: TopicLayout,
): Promise<string[]> {
  const existing = new Set(await admin.listTopics())
  const replicationFactor = layout.replicationFactor
  const isr = { name: 'min.insync.replicas', value: String(layout.minInsyncReplicas) }
  const forever = { name: 'retention.ms', value: '-1' }
  // One request's records for one user are one record batch, and a batch request may carry 10 MB
  // of JSON (BATCH_BODY_LIMIT_BYTES): the broker's default 1 MB limit would refuse such a valid
  // request on every retry. Consumers fetch an oversized first batch whole (KIP-74).
  const large = { name: 'max.message.bytes', value: String(layout.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) }
  const wanted: ITopicConfig[] = [
    { topic: topics.events, numPartitions: layout.partitions, replicationFactor, configEntries: [forever, isr, large] },
    {
      topic: topics.identifies,
      numPartitions: layout.partitions,
      replicationFactor,
      configEntries: [forever, isr, large],
    },
    {
      topic: topics.accounts,
      numPartitions: 1,
      replicationFactor,
      configEntries: [{ name: 'cleanup.policy', value: 'compact' }, isr],
    },
    { topic: topics.dlq, numPartitions: 1, replicationFactor, configEntries: [forever, isr] },
    // One partition like the accounts topic: every follower reads all of it (A12).
    ...(topics.erasures
      ? [
          {
            topic: topics.erasures,
            numPartitions: 1,
            replicationFactor,
            configEntries: [{ name: 'cleanup.policy', value: 'compact' }, isr],
          },
        ]
      : []),
    // One partition like the erasures topic: every reader holds every key it may need (A15).
    ...(topics.keys
      ? [
          {
            topic: topics.keys,
            numPartitions: 1,
            replicationFactor,
            configEntries: keysTopicConfig(layout.keys, isr),
          },
        ]
      : []),
    // H66: best effort and short-lived; samples hold personal data (docs/privacy.md).
    ...(topics.refusals
      ? [
          {
            topic: topics.refusals,
            numPartitions: 1,
            replicationFactor,
            configEntries: [{ name: 'retention.ms', value: String(7 * 24 * 3600_000) }, isr],
          },
        ]
      : []),
  ].filter((t) => !existing.has(t.topic))
  if (wanted.length) {
    // kafkajs's own waitForLeaders gives up when the new topic's metadata has not reached the
    // broker's cache yet (UNKNOWN_TOPIC_OR_PARTITION); poll for leaders here instead.
    await admin.createTopics({ topics: wanted, waitForLeaders: false }).catch((err) => {
      // kafkajs says only "Topic creation errors"; the broker's reason per topic is what an operator needs.
      const reasons = ((err as { errors?: Array<{ topic?: string; message?: string }> }).errors ?? []).map(
        (e) => `${e.topic}: ${e.message}`,
      )
      throw reasons.length
        ? new TopicConfigError(`could not create topics (${reasons.join('; ')})`, { cause: err })
        : err
    })
    await waitForLeaders(
      admin,
      wanted.map((t) => t.topic),
    )
  }
  return wanted.map((t) => t.topic)
}

/** The largest record batch each topic takes: its effective `max.message.bytes`, which is the broker's
 * `message.max.bytes` unless the topic overrides it (describeConfigs answers the value in force either
 * way). Topics made by ensureTopics have 32 MiB; ones made by hand or left from an older deployment may
 * have the broker's default 1 MB, which refuses large requests on every retry. */
export async function topicMaxMessageBytes(admin: Admin, topics: readonly string[]): Promise<Map<string, number>> {
  const { resources } = await admin.describeConfigs({
    resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['max.message.bytes'] })),
    includeSynonyms: false,
  })
  const out = new Map<string, number>()
  for (const r of resources) {
    const entry = r.configEntries.find((e) => e.configName === 'max.message.bytes')
    const bytes = Number(entry?.configValue)
    if (r.errorCode !== 0 || !Number.isSafeInteger(bytes) || bytes <= 0) {
      throw new TopicConfigError(
        `could not read max.message.bytes of topic ${r.resourceName}: ${r.errorMessage || `value ${entry?.configValue}`}`,
      )
    }
    out.set(r.resourceName, bytes)
  }
  return out
}

async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const started = Date.now()
  // H68's loop as a poll: every 100 ms, whatever the failure, until the deadline.
  await retry(
    async () => {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics })
      const led =
        meta.length === topics.length &&
        meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
      if (!led) throw new Error('a partition has no leader yet')
    },
    {
      initialMs: 100,
      maxMs: 100,
      jitter: false,
      retryIf: () => true,
      giveUp: (err) =>
        Date.now() - started >= timeoutMs
          ? new Error(`topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms`, { cause: err })
          : undefined,
    },
  )
}
