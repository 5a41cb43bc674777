// A15: ingest's crypto-shredding lane, built at the edge (main.ts) when PRIVACY_ENCRYPT is on: the
// record sealer and the producer that stores its data keys on the keys topic. It warns at start when the
// master key is the public development one (A29).
import type { Kafka } from '../../../shared/src/kafka/client.js'
import { createProducer } from '../../../shared/src/kafka/client.js'
import type { IngestConfig } from '../config.js'
import type { Logger } from '../../../shared/src/log.js'
import { masterKeyWarning } from '../../../shared/src/privacy/crypto/privacy-config.js'
import { RecordSealer, type WrappedKey } from './record-sealer.js'

export { RecordSealer, type SealInput } from './record-sealer.js'

/** The keys lane: its own idempotent producer, acks=all (a 200 for a sealed record means its key is
 *  stored too), with the flush deadline the event appender has (PRODUCER_FLUSH_TIMEOUT_MS). */
export function createKeysLane(kafka: Kafka, cfg: IngestConfig, log: Logger) {
  if (!cfg.privacy.encrypt) return undefined
  const keyWarning = masterKeyWarning(cfg.privacy)
  if (keyWarning !== undefined) log.warn(keyWarning)
  const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 5 })
  const topic = cfg.topics.keys!
  const write = async (keys: WrappedKey[]) =>
    void (await producer.send({
      topic,
      acks: -1,
      timeout: cfg.producer.flushTimeoutMs,
      messages: keys.map((k) => ({ key: k.id, value: k.wrapped })),
    }))
  return {
    sealer: new RecordSealer(cfg.privacy.masterKey, write, cfg.privacy.keyCacheEntries, cfg.privacy.pseudonymKey),
    start: () => producer.connect(),
    close: () => producer.disconnect(),
  }
}
