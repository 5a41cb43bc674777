// Test helper: every record of a topic, as stored (keys and values as bytes), read from its start up
// to the end it had when called.
import { randomBytes } from 'node:crypto'
import type { Kafka } from '../../services/shared/src/kafka/client.js'

export interface RawRecord {
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
}

export async function readTopic(kafka: Kafka, topic: string): Promise<RawRecord[]> {
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  const left = new Map(ends.filter((p) => p.high !== p.low).map((p) => [p.partition, BigInt(p.high)]))
  const out: RawRecord[] = []
  if (left.size === 0) return out
  const consumer = kafka.consumer({ groupId: `read-${randomBytes(4).toString('hex')}` })
  await consumer.connect()
  try {
    await new Promise<void>((resolve, reject) => {
      consumer.subscribe({ topic, fromBeginning: true }).then(
        () =>
          consumer.run({
            eachMessage: async ({ partition, message }) => {
              out.push({ partition, offset: message.offset, key: message.key, value: message.value })
              if (BigInt(message.offset) + 1n >= (left.get(partition) ?? 0n)) left.delete(partition)
              if (left.size === 0) resolve()
            },
          }),
        reject,
      )
    })
  } finally {
    await consumer.disconnect()
  }
  return out
}
