// Reading a bounded piece of a topic once, start to end, outside any service's consumer group: the keys
// topic for an erasure (privacy/keys-scan.ts) and the tail of a destination topic for a
// resumed re-encryption (scripts/privacy/reencrypt.ts). A throwaway group that commits nothing, so the
// read leaves no offsets behind. A range's end is reached by position, not by the last record handed
// over: a consumer never sees a transaction's commit or abort marker (nor aborted records), and ingest's
// transactional appends (A4) end partitions in one, so the record just before the end may never come.
import { randomBytes } from 'node:crypto'
import type { ConsumerEndBatchProcessEvent, Kafka, KafkaMessage } from './client.js'

export interface OffsetRange {
  partition: number
  /** First offset to read. */
  start: bigint
  /** One past the last offset to read. */
  end: bigint
}

/** Each partition of `topic` from its first record still kept to its end now. */
export async function wholeRanges(kafka: Kafka, topic: string): Promise<OffsetRange[]> {
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  return ends.map((p) => ({ partition: p.partition, start: BigInt(p.low), end: BigInt(p.high) }))
}

/**
 * Calls `each` for every record of `topic` in `ranges` (empty ranges skipped), in offset order within a
 * partition, and resolves once the record just before each range's end was read. The group's name starts
 * with `groupPrefix`, so an operator can tell what made it.
 */
export async function readRanges(
  kafka: Kafka,
  topic: string,
  ranges: OffsetRange[],
  groupPrefix: string,
  /** May return a promise (a write the read must wait for): the next record comes once it resolves. */
  each: (partition: number, message: KafkaMessage) => void | Promise<void>,
): Promise<void> {
  // Copies: a range's start moves past each record handed over (below).
  const left = new Map(ranges.filter((r) => r.end > r.start).map((r) => [r.partition, { ...r }]))
  if (left.size === 0) return
  const consumer = kafka.consumer({ groupId: `${groupPrefix}-${randomBytes(6).toString('hex')}` })
  await consumer.connect()
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await new Promise<void>((resolve, reject) => {
      const reached = (partition: number, offset: string) => {
        const r = left.get(partition)
        if (r !== undefined && BigInt(offset) + 1n >= r.end) left.delete(partition)
        if (left.size === 0) resolve()
      }
      // A fetch's last offset counts its markers, and a fetch of markers alone has no message at all.
      consumer.on(consumer.events.END_BATCH_PROCESS, (e: ConsumerEndBatchProcessEvent) => {
        if (e.payload.topic === topic) reached(e.payload.partition, e.payload.lastOffset)
      })
      // Whole batches, not eachMessage: kafkajs then resolves an offset, heartbeats and checks its commits
      // for every record, which made a read of the keys topic take three times as long (BENCHMARKS.md,
      // "Reading the keys topic in batches"). A record before a range's start is skipped, and so is one handed over
      // already: the seek below lands after the first fetch, which may have read the range's first records.
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch, isRunning, heartbeat }) => {
            const partition = batch.partition
            for (const message of batch.messages) {
              const r = left.get(partition)
              if (r === undefined || !isRunning()) return
              const offset = BigInt(message.offset)
              if (offset < r.start) continue
              r.start = offset + 1n
              const wait = each(partition, message)
              if (wait !== undefined) {
                await wait
                // A batch the caller writes for may take seconds: the group must not think this member gone.
                await heartbeat()
              }
              reached(partition, message.offset)
            }
          },
        })
        .catch(reject)
      for (const r of left.values()) consumer.seek({ topic, partition: r.partition, offset: r.start.toString() })
    })
  } finally {
    await consumer.disconnect()
  }
}
