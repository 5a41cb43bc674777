// Reading the keys topic of crypto-shredding (A15) once, start to end: the projector's erasure worker
// (privacy/person-keys.ts, A17) and the drill's check that an erased person's records open for no one.
import type { Kafka } from '../kafka/client.js'
import { readRanges } from '../kafka/read-ranges.js'

/** One record of the keys topic as stored: a wrapped key, or a tombstone (value null). */
export interface KeyEntry {
  id: string
  tombstone: boolean
  /** The record's timestamp (the producer's create time), ms. */
  at: number
}

/** Every record of the keys topic (one partition, A15) from its start to its end when called. */
export async function scanKeys(kafka: Kafka, topic: string): Promise<KeyEntry[]> {
  const admin = kafka.admin()
  await admin.connect()
  const [end] = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  if (end === undefined || end.high === end.low) return []
  // The last record is in the active segment, which the cleaner never takes: it is there to be read.
  const out: KeyEntry[] = []
  const range = { partition: end.partition, start: BigInt(end.low), end: BigInt(end.high) }
  await readRanges(kafka, topic, [range], 'erasure-keys-scan', (_, message) => {
    out.push({
      id: message.key?.toString('utf8') ?? '',
      tombstone: message.value === null,
      at: Number(message.timestamp),
    })
  })
  return out
}
