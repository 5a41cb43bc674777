// Before the kafkajs replacements are swapped in (kafkajs-fixes.ts), each one is run on fixed input
// next to the kafkajs module it replaces, in this process, and must give the same output: the same
// bytes for the encoders and the checksum, the same object for the decoder and the grouping. The
// version check says which kafkajs the replacements were written against; this says they still behave
// like it on this machine (Node, Buffer, the installed files), and a replacement edited wrongly is
// caught at start instead of corrupting records. kafkajs-fixes.test.ts compares them on random input.
//
// The originals are loaded only for the test: every kafkajs module it loads is dropped from Node's
// module cache afterwards, so kafkajs later loads fresh ones, which pick the replacements up.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { BatchContext, KafkajsEncoder, KafkajsRequest, LongClass, ProduceArgs, RecordArgs, Replacements } from './kafkajs-fixes.js'

const require = createRequire(import.meta.url)

/** Deterministic bytes: the same vector on every run and machine. */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n)
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed * 17 + 7) & 0xff
  return b
}

const FROZEN_NOW = 1732300000123
const KEYS: Array<Buffer | string | null> = ['acct_1:user_1', '', null, Buffer.from('bytes key'), 'clé ü']
const VALUES: Array<Buffer | string | null> = [bytes(600, 1), bytes(0, 2), bytes(8200, 3), 'é text', null]
const DELTAS = [0, 1, 63, 64, 8192, -1, 2 ** 27]

/** kafkajs reads the clock once per partition: both produce encoders run with the same frozen clock. */
export async function withClock<T>(ms: number, f: () => Promise<T>): Promise<T> {
  const real = Date.now
  Date.now = () => ms
  try {
    return await f()
  } finally {
    Date.now = real
  }
}

interface Originals {
  Encoder: new (initialSize?: number) => KafkajsEncoder
  Decoder: new (b: Buffer) => { offset: number; readVarIntBytes(): Buffer }
  Long: LongClass
  crc: (b: Buffer) => number
  group: Replacements['groupMessagesPerPartition']
  record: (a: RecordArgs) => KafkajsEncoder
  recordDecoder: Parameters<Replacements['recordDecoder']>[0]
  produce: (a: ProduceArgs) => KafkajsRequest
  request: ReturnType<Replacements['encodeRequest']>
}

function loadOriginals(root: string): Originals {
  const src = (p: string) => require(join(root, 'src', p))
  return {
    Encoder: src('protocol/encoder.js'),
    Decoder: src('protocol/decoder.js'),
    Long: src('utils/long.js'),
    crc: src('protocol/recordBatch/crc32C/index.js'),
    group: src('producer/groupMessagesPerPartition.js'),
    record: src('protocol/recordBatch/record/v0/index.js'),
    recordDecoder: src('protocol/recordBatch/record/v0/decoder.js'),
    produce: src('protocol/requests/produce/v3/request.js'),
    request: src('protocol/request.js'),
  }
}

const CHECKS: Record<keyof Replacements, (r: Replacements, o: Originals) => boolean | Promise<boolean>> = {
  crc32c: (r, o) => [0, 1, 7, 8, 9, 63, 1000, 4099].every((n) => r.crc32c(bytes(n, n)) === o.crc(bytes(n, n))),

  groupMessagesPerPartition: (r, o) => {
    const partitionMetadata = Array.from({ length: 6 }, (_, i) => ({ partitionId: i, leader: 0 }))
    const messages = Array.from({ length: 200 }, (_, i) => ({ key: `acct_${i % 7}:user_${i % 13}`, value: bytes(3, i) }))
    const partitioner = ({ message }: { message: { key: string } }) => message.key.length % 6
    const args = { topic: 'events', partitionMetadata, messages, partitioner }
    const ours = r.groupMessagesPerPartition(args)
    const theirs = o.group(args)
    const keys = Object.keys(theirs)
    return keys.join() === Object.keys(ours).join() &&
      keys.every((k) => theirs[+k]!.length === ours[+k]!.length && theirs[+k]!.every((m, i) => m === ours[+k]![i]))
  },

  recordEncoder: (r, o) => {
    const fixed = r.recordEncoder(o.Encoder, o.record)
    return VALUES.every((value) => KEYS.every((key) => DELTAS.every((d) => {
      const a: RecordArgs = { offsetDelta: Math.abs(d), timestampDelta: d, key, value }
      return fixed(a).buffer.equals(o.record(a).buffer)
    })))
  },

  recordDecoder: (r, o) => {
    const fixed = r.recordDecoder(o.recordDecoder)
    const contexts: BatchContext[] = [
      { firstOffset: '0', firstTimestamp: '1732300000000', magicByte: 2, timestampType: 0, maxTimestamp: '1732300000000' },
      { firstOffset: '5', firstTimestamp: '1732300000000', magicByte: 2, timestampType: 1, maxTimestamp: '1732300099999' },
    ]
    // Smaller values than the encoder's: the decoder's work is per record, not per byte.
    return contexts.every((ctx) => VALUES.filter((v) => v === null || v.length < 1000).every((value) => KEYS.slice(0, 3).every((key) => DELTAS.every((d) => {
      // What the batch decoder hands the record decoder: the record after its length.
      const record = new o.Decoder(o.record({ offsetDelta: Math.abs(d), timestampDelta: d, key, value }).buffer).readVarIntBytes()
      const a = new o.Decoder(record)
      const b = new o.Decoder(record)
      return sameDecoded(fixed(a as never, ctx), o.recordDecoder(b as never, ctx)) && a.offset === b.offset
    }))))
  },

  produceRequestV3: async (r, o) => {
    const fixed = r.produceRequestV3(o.Encoder, o.Long, o.produce)
    const args = produceVector(o.Long)
    const ours = await withClock(FROZEN_NOW, async () => (await fixed(args).encode()).buffer)
    const theirs = await withClock(FROZEN_NOW, async () => (await o.produce(args).encode()).buffer)
    return ours.equals(theirs)
  },

  encodeRequest: async (r, o) => {
    const framed = r.encodeRequest(o.Encoder)
    for (const clientId of ['ingest', null]) {
      const request = o.produce(produceVector(o.Long, 3))
      const ours = await withClock(FROZEN_NOW, async () => (await framed({ correlationId: 77, clientId, request })).buffer)
      const theirs = await withClock(FROZEN_NOW, async () => (await o.request({ correlationId: 77, clientId, request })).buffer)
      if (!ours.equals(theirs)) return false
    }
    return true
  },
}

/** A transactional, idempotent send over two topics and three partitions, as ingest makes them (70
 * records in one partition: offset deltas of one and two bytes). */
function produceVector(Long: LongClass, most = 70): ProduceArgs {
  const messages = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ({ key: `acct_${seed}:user_${i}`, value: bytes(1 + ((i * 37 + seed) % 900), seed + i) }))
  return {
    acks: -1, timeout: 30000, transactionalId: 'ingest-tx-0', producerId: Long.fromValue('81985529216486895'), producerEpoch: 1,
    topicData: [
      { topic: 'events', partitions: [{ partition: 0, firstSequence: 17, messages: messages(5, 1) }, { partition: 5, firstSequence: 2 ** 31 - 10, messages: messages(most, 2) }] },
      { topic: 'identifies', partitions: [{ partition: 3, firstSequence: 0, messages: messages(2, 3) }] },
    ],
  }
}

/** Two decoded records alike: the same fields in the same order, key and value the same bytes. */
function sameDecoded(ours: unknown, theirs: unknown): boolean {
  const a = ours as { key: Buffer | null; value: Buffer | null }
  const b = theirs as { key: Buffer | null; value: Buffer | null }
  const sameBytes = (x: Buffer | null, y: Buffer | null) => (x === null || y === null ? x === y : x.equals(y))
  const rest = (r: object) => JSON.stringify({ ...r, key: undefined, value: undefined })
  return sameBytes(a.key, b.key) && sameBytes(a.value, b.value) && rest(a) === rest(b) && Object.keys(a).join() === Object.keys(b).join()
}

/**
 * Runs each replacement beside kafkajs's module (under `root`, its package directory) on the fixed
 * vectors; returns the names of those whose output differs or that threw. Leaves Node's module cache
 * as it found it.
 */
export async function selfTestReplacements(root: string, replacements: Replacements): Promise<string[]> {
  const cached = new Set(Object.keys(require.cache))
  try {
    const originals = loadOriginals(root)
    const failed: string[] = []
    for (const [name, check] of Object.entries(CHECKS) as Array<[keyof Replacements, (typeof CHECKS)[keyof Replacements]]>) {
      const same = await Promise.resolve().then(() => check(replacements, originals)).catch(() => false)
      if (!same) failed.push(name)
    }
    return failed
  } finally {
    for (const file of Object.keys(require.cache)) if (!cached.has(file) && file.startsWith(root)) delete require.cache[file]
  }
}
