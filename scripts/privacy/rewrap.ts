// A35: the second half of a master key rotation. Every data key on the keys topic that an old master
// (PRIVACY_OLD_MASTER_KEY) wraps is written again under the same id, wrapped by PRIVACY_MASTER_KEY; the
// keys topic is compacted (A15), so its cleaner then drops the old copy, and once `check` counts none left
// the old master opens nothing the broker serves (`check` writes no key: only, while copies are left, the
// tombstone of no key that rolls the topic's active segment, A17). Three reads of the one partition, none
// holding the topic:
// 1. the ids with a tombstone (erased people's keys, expired months: A17, A23), never written again;
// 2. every key opened and, when an old master opened it, written again (in sends of REWRAP_A_SEND);
// 3. the records appended meanwhile: an id tombstoned while step 2 ran and re-wrapped after its tombstone
//    would be a key brought back, so it is tombstoned again.
import type { Kafka, KafkaMessage, Producer } from '../../services/shared/src/kafka/client.js'
import { type OffsetRange, readRanges, wholeRanges } from '../../services/shared/src/kafka/read-ranges.js'
import { type MasterKeyRing, wrapDataKey } from '../../services/shared/src/privacy/crypto/index.js'
import { ROLL_KEY_ID } from '../../services/shared/src/privacy/keys-scan.js'

export interface RewrapDeps {
  kafka: Kafka
  producer: Producer
  /** The keys topic (TOPIC_KEYS). */
  topic: string
  masters: MasterKeyRing
  note: (line: string) => void
  /** How often a progress line is noted while keys are read. */
  progressMs: number
}

export interface RewrapSummary {
  /** Records read in step 2: keys and tombstones. */
  records: number
  /** Keys the current master opens. */
  current: number
  /** Keys an old master opens, each copy the broker still serves, an erased one's or a replaced one's too. */
  old: number
  /** Of those, written again under the current master (none with `check`). */
  rewrapped: number
  /** Keys no master given opens: their master is missing from PRIVACY_OLD_MASTER_KEY. */
  unopened: number
  /** Tombstones written again: a key tombstoned while this ran (or a run before it stopped) and re-wrapped. */
  retombstoned: number
  durationMs: number
}

/** Records in one send: a wrapped key and its id are under 200 bytes, so a send stays near 200 kB. */
export const REWRAP_A_SEND = 1_000

/** A35: re-wraps the keys an old master wraps (with `check`, counts them and writes nothing). */
export async function rewrap(deps: RewrapDeps, o: { check: boolean }): Promise<RewrapSummary> {
  const started = Date.now()
  const { kafka, producer, topic, masters } = deps
  const range = await partitionRange(kafka, topic)
  const tombstoned = await tombstoneStates(kafka, topic, range, 'privacy-rewrap-tombstones')
  const s: RewrapSummary = { records: 0, current: 0, old: 0, rewrapped: 0, unopened: 0, retombstoned: 0, durationMs: 0 }
  // A run before this one that stopped between its steps 2 and 3 left such keys: tombstoned first.
  if (!o.check) s.retombstoned += await send(producer, topic, broughtBack(tombstoned).map(tombstone))

  // The partition named: kafkajs then skips hashing each key for its partitioner (the topic has one, A15).
  let pending: Array<{ key: string; value: Buffer; partition: number }> = []
  const flush = async () => {
    const batch = pending
    pending = []
    s.rewrapped += await send(producer, topic, batch)
  }
  const total = range.end - range.start
  let lastNote = Date.now()
  await readRanges(kafka, topic, [range], 'privacy-rewrap', (_, m) => {
    s.records++
    if (Date.now() - lastNote >= deps.progressMs) {
      lastNote = Date.now()
      deps.note(
        `rewrap: ${s.records} of ${total} records read, ${s.old} keys of an old master, ${s.rewrapped} re-wrapped`,
      )
    }
    if (m.value === null) return
    const id = keyIdOf(m)
    let key: Buffer
    try {
      key = masters.open(id, m.value)
    } catch {
      s.unopened++
      return
    }
    if (masters.lastOpener === 0) {
      s.current++
      return
    }
    s.old++
    if (o.check || tombstoned.has(id)) return
    pending.push({ key: id, value: wrapDataKey(masters.keys[0]!, id, key), partition: range.partition })
    if (pending.length >= REWRAP_A_SEND) return flush()
  })
  await flush()
  if (!o.check) s.retombstoned += await tombstoneBroughtBack(deps, range.end)
  // As the erasure's disk check does (A17): the cleaner never takes the active segment, and a quiet topic
  // rolls it only on an append, so the old copies left in it would stay.
  else if (s.old > 0) await send(producer, topic, [tombstone(ROLL_KEY_ID)])
  s.durationMs = Date.now() - started
  return s
}

/** The keys topic's one partition (A15), from its first record to its end now. */
async function partitionRange(kafka: Kafka, topic: string): Promise<OffsetRange> {
  const ranges = await wholeRanges(kafka, topic)
  if (ranges.length !== 1) throw new Error(`${topic} has ${ranges.length} partitions; the keys topic has one (A15)`)
  return ranges[0]!
}

type TombstoneState = 'tombstoned' | 'brought back'

/** Steps 1 and 3: each id with a tombstone in the range, and whether a key of it came after its last one. */
async function tombstoneStates(kafka: Kafka, topic: string, range: OffsetRange, group: string) {
  const ids = new Map<string, TombstoneState>()
  await readRanges(kafka, topic, [range], group, (_, m) => {
    if (m.value === null) ids.set(keyIdOf(m), 'tombstoned')
    else if (ids.size > 0) {
      const id = keyIdOf(m)
      if (ids.has(id)) ids.set(id, 'brought back')
    }
  })
  return ids
}

/** Step 3: the records from `from` to the end now; an id tombstoned there and then re-wrapped is tombstoned
 *  again (a key minted meanwhile has an id never tombstoned: A20's fresh generation). */
async function tombstoneBroughtBack(deps: RewrapDeps, from: bigint): Promise<number> {
  const range = { ...(await partitionRange(deps.kafka, deps.topic)), start: from }
  const ids = await tombstoneStates(deps.kafka, deps.topic, range, 'privacy-rewrap-since')
  return send(deps.producer, deps.topic, broughtBack(ids).map(tombstone))
}

const broughtBack = (ids: Map<string, TombstoneState>) =>
  [...ids].filter(([, state]) => state === 'brought back').map(([id]) => id)

const keyIdOf = (m: KafkaMessage) => m.key?.toString('utf8') ?? ''
const tombstone = (key: string) => ({ key, value: null })

/** Writes `messages` with acks=all, REWRAP_A_SEND at a time; how many. */
async function send(
  producer: Producer,
  topic: string,
  messages: Array<{ key: string; value: Buffer | null; partition?: number }>,
) {
  for (let i = 0; i < messages.length; i += REWRAP_A_SEND)
    await producer.send({ topic, acks: -1, messages: messages.slice(i, i + REWRAP_A_SEND) })
  return messages.length
}
