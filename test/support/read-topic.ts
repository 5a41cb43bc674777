// Test helper: every record of a topic, as stored (keys and values as bytes), read from its start up
// to the end it had when called. The bounded read is the services' own (read-ranges.ts), which ends a
// partition at its end even when the last offsets are transaction markers no consumer is handed.
import type { Kafka } from '../../services/shared/src/kafka/client.js'
import { readRanges, wholeRanges } from '../../services/shared/src/kafka/read-ranges.js'

export interface RawRecord {
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
}

export async function readTopic(kafka: Kafka, topic: string): Promise<RawRecord[]> {
  const ranges = await wholeRanges(kafka, topic)
  const out: RawRecord[] = []
  await readRanges(kafka, topic, ranges, 'read', (partition, message) => {
    out.push({ partition, offset: message.offset, key: message.key, value: message.value })
  })
  return out
}
