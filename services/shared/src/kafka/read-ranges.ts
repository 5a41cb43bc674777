// Reading a bounded piece of a topic once, start to end, outside any service's consumer group: the keys
// topic for an erasure (projector's privacy/person-keys.ts) and the tail of a destination topic for a
// resumed re-encryption (scripts/privacy/reencrypt.ts). A throwaway group that commits nothing, so the
// read leaves no offsets behind.
import { randomBytes } from 'node:crypto'
import type { Kafka, KafkaMessage } from './client.js'

export interface OffsetRange {
  partition: number
  /** First offset to read. */
  start: bigint
  /** One past the last offset to read. */
  end: bigint
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
  each: (partition: number, message: KafkaMessage) => void,
): Promise<void> {
  const left = new Map(ranges.filter((r) => r.end > r.start).map((r) => [r.partition, r]))
  if (left.size === 0) return
  const consumer = kafka.consumer({ groupId: `${groupPrefix}-${randomBytes(6).toString('hex')}` })
  await consumer.connect()
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const r = left.get(partition)
            if (r === undefined || BigInt(message.offset) < r.start) return
            each(partition, message)
            if (BigInt(message.offset) + 1n >= r.end) left.delete(partition)
            if (left.size === 0) resolve()
          },
        })
        .catch(reject)
      for (const r of left.values()) consumer.seek({ topic, partition: r.partition, offset: r.start.toString() })
    })
  } finally {
    await consumer.disconnect()
  }
}
