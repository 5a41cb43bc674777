// What the event topics can take, checked at start and before each send (H37). Kafka refuses a record
// batch larger than the topic's max.message.bytes, and one partition's records of one produce are one
// batch: a request whose records for one user (one key: one partition) are larger than that can never
// be stored, and a flush larger than that would be refused for every request in it. So:
//   - at start, a topic that cannot take one valid item stops ingest (it could store nothing reliably);
//   - the flush cap (PRODUCER_MAX_BATCH_BYTES) is lowered to what the smallest topic takes, with a warning;
//   - a request whose records for one key cannot fit is answered 413 before anything is sent.
// Sizes are upper bounds of Kafka's v2 record format (no compression, no headers), so what passes fits.
import { TopicConfigError } from '../../../shared/src/kafka.js'
import { MAX_BATCH_ITEMS, MAX_EVENT_BYTES } from '../validation/schemas.js'

/** A v2 record batch's header, with the log's offset and length prefix: what the broker measures. */
export const BATCH_OVERHEAD_BYTES = 61
/** A v2 record's framing besides its key and value, at most: length, attributes, timestamp and offset
 * deltas, key and value lengths (varints) and an empty header count. */
export const RECORD_OVERHEAD_BYTES = 32
/** The largest record one valid item makes: its JSON (H9, 32 KB) and what the server adds (context ip
 * and user agent, which Node's 16 KB header limit bounds, ids and times), with room to spare. */
export const MAX_ITEM_RECORD_BYTES = 2 * MAX_EVENT_BYTES

export interface RecordLike {
  topic: string
  key: string
  value: Buffer
}

/** The largest batch one request can make in one partition: a batch of MAX_BATCH_ITEMS items of one user. */
export const LARGEST_REQUEST_BYTES =
  BATCH_OVERHEAD_BYTES + MAX_BATCH_ITEMS * (MAX_ITEM_RECORD_BYTES + RECORD_OVERHEAD_BYTES)

/** The first topic whose records for one key in `records` would make a batch over its limit, if any. */
export function oversizedTopic(
  records: readonly RecordLike[],
  limits: ReadonlyMap<string, number>,
  smallest: number,
): { topic: string; limitBytes: number } | undefined {
  // Nearly every request: all its records together fit the smallest topic, so no key can be over (a
  // key's UTF-16 length times 3 bounds its UTF-8 bytes).
  let total = BATCH_OVERHEAD_BYTES
  for (const r of records) total += r.key.length * 3 + r.value.length + RECORD_OVERHEAD_BYTES
  if (total <= smallest) return undefined
  const groups = new Map<string, number>()
  for (const r of records) {
    const k = `${r.topic}\u0000${r.key}`
    groups.set(
      k,
      (groups.get(k) ?? BATCH_OVERHEAD_BYTES) + Buffer.byteLength(r.key) + r.value.length + RECORD_OVERHEAD_BYTES,
    )
  }
  for (const [k, bytes] of groups) {
    const topic = k.slice(0, k.indexOf('\u0000'))
    const limitBytes = limits.get(topic)
    if (limitBytes !== undefined && bytes > limitBytes) return { topic, limitBytes }
  }
  return undefined
}

export interface FlushPlan {
  /** Bytes per flush, at most what the smallest topic takes in one batch. */
  maxBatchBytes: number
  /** Said once at start when the topics take less than the configuration or the body limits allow. */
  warnings: string[]
}

/**
 * Checks the event topics' max.message.bytes against what ingest sends: throws TopicConfigError
 * (ingest refuses to start) when a topic cannot take one valid item, and lowers the flush cap to fit.
 * The flush cap counts each record's framing with its key and value (record-appender.ts).
 */
export function planFlushes(limits: ReadonlyMap<string, number>, configuredBatchBytes: number): FlushPlan {
  const warnings: string[] = []
  let maxBatchBytes = configuredBatchBytes
  const largestRequestBytes = LARGEST_REQUEST_BYTES
  for (const [topic, limit] of limits) {
    if (limit < MAX_ITEM_RECORD_BYTES + BATCH_OVERHEAD_BYTES) {
      throw new TopicConfigError(
        `topic ${topic} takes record batches of at most ${limit} bytes (max.message.bytes), less than one valid item can need (${MAX_ITEM_RECORD_BYTES + BATCH_OVERHEAD_BYTES}); raise it (ingest creates its topics with 33554432)`,
      )
    }
    if (limit - BATCH_OVERHEAD_BYTES < maxBatchBytes) {
      maxBatchBytes = limit - BATCH_OVERHEAD_BYTES
      warnings.push(
        `topic ${topic} takes record batches of at most ${limit} bytes (max.message.bytes): flushes are capped at ${maxBatchBytes} bytes instead of PRODUCER_MAX_BATCH_BYTES ${configuredBatchBytes}`,
      )
    }
    if (limit < largestRequestBytes) {
      warnings.push(
        `topic ${topic} takes record batches of at most ${limit} bytes (max.message.bytes): a request whose records for one user are larger is answered 413; raise it to ${largestRequestBytes} or more to take every request the body limits allow`,
      )
    }
  }
  return { maxBatchBytes, warnings }
}
