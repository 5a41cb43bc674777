// Reading the keys topic of crypto-shredding (A15) once, start to end, and what its records say: which keys
// are live and which records are left. Used by the projector's erasure worker (privacy/keys-eraser.ts, A17,
// A23) and by the drill's check that an erased person's records open for no one.
import type { Kafka } from '../kafka/client.js'
import { readRanges, wholeRanges } from '../kafka/read-ranges.js'

/** A key id no data key has (its account is empty): its tombstone is appended to roll the keys topic's
 *  active segment, which the cleaner never takes (the erasure's disk check, A17; the rewrap's check, A35). */
export const ROLL_KEY_ID = '\u0000roll'

/** One record of the keys topic as stored: a wrapped key, or a tombstone (value null). */
export interface KeyEntry {
  id: string
  tombstone: boolean
  /** The record's timestamp (the producer's create time), ms. */
  at: number
}

/** The records of the keys topic (one partition, A15) from its start to its end when called, those whose id
 *  `keep` matches (all without it). The topic holds a record a person-month: an erasure keeps only its
 *  person's, so what a scan holds does not grow with the topic (BENCHMARKS.md, "An erasure at scale"). */
export async function scanKeys(kafka: Kafka, topic: string, keep?: KeyMatch): Promise<KeyEntry[]> {
  const kept = keep === undefined ? undefined : keyMatcher(keep)
  const [range] = await wholeRanges(kafka, topic)
  if (range === undefined || range.end === range.start) return []
  // The last record is in the active segment, which the cleaner never takes: it is there to be read.
  const out: KeyEntry[] = []
  await readRanges(kafka, topic, [range], 'erasure-keys-scan', (_, message) => {
    const id = message.key?.toString('utf8') ?? ''
    if (kept === undefined || kept(id))
      out.push({ id, tombstone: message.value === null, at: Number(message.timestamp) })
  })
  return out
}

/** Which key ids a step covers: a prefix (one person's keys, A17) or a rule (a retention's months, A23). */
export type KeyMatch = string | ((id: string) => boolean)

/** The test a KeyMatch stands for. */
export const keyMatcher = (m: KeyMatch) => (typeof m === 'string' ? (id: string) => id.startsWith(m) : m)

/** The ids matched whose latest record is a key, not a tombstone: what an erasure must tombstone. */
export function liveKeyIds(entries: readonly KeyEntry[], match: KeyMatch): string[] {
  const covers = keyMatcher(match)
  const latest = new Map<string, boolean>()
  for (const e of entries) if (covers(e.id)) latest.set(e.id, e.tombstone)
  return [...latest].filter(([, tombstone]) => !tombstone).map(([id]) => id)
}

/**
 * Records matched written at or before `until` that a reader of the topic still gets, tombstones
 * included. None left means the cleaner has removed the keys and then their tombstones (a tombstone is
 * dropped only after the values it shadows, delete.retention.ms after its segment was cleaned).
 */
export function leftBefore(entries: readonly KeyEntry[], match: KeyMatch, until: number): number {
  const covers = keyMatcher(match)
  return entries.filter((e) => e.at <= until && covers(e.id)).length
}
