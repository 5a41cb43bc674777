// The seven replaced modules of the vendored kafkajs (CHANGES.md) against their upstream copies, on
// random input: the same results, byte for byte (encoders, checksum), the same objects (grouping,
// record decoder, record batch decoder). The upstream produce request and record batch call the vendored record encoder and
// CRC-32C, each compared with its own upstream copy here.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { src, upstream, withClock } from './support.js'

type Enc = { buffer: Buffer }
type RecordArgs = { offsetDelta?: number; timestampDelta?: number; key?: unknown; value?: unknown; headers?: Record<string, unknown> }

const Encoder = src('protocol/encoder.js')
const Decoder = src('protocol/decoder.js')
const Long = src('utils/long.js')
const { DefaultPartitioner } = src('producer/partitioners/index.js')
const { RecordBatch } = src('protocol/recordBatch/v0/index.js') as { RecordBatch: (a: { records: unknown[]; firstTimestamp: number; maxTimestamp: number }) => Promise<Enc> }

t.test('crc32C: the same checksum as upstream for every length', async (t) => {
  const ours = src<(b: Buffer) => number>('protocol/recordBatch/crc32C/index.js')
  const theirs = upstream<(b: Buffer) => number>('protocol/recordBatch/crc32C/index.js')
  for (let len = 0; len < 80; len++) {
    const b = randomBytes(len)
    t.equal(ours(b), theirs(b), `length ${len}`)
  }
  for (const len of [511, 4096, 100_003]) {
    const b = randomBytes(len)
    t.equal(ours(b), theirs(b), `length ${len}`)
    t.equal(ours(b.subarray(3)), theirs(b.subarray(3)), `length ${len - 3} at an odd offset`)
  }
})

t.test('groupMessagesPerPartition: the same groups, in order, as upstream', async (t) => {
  const ours = src('producer/groupMessagesPerPartition.js')
  const theirs = upstream('producer/groupMessagesPerPartition.js')
  const partitionMetadata = Array.from({ length: 6 }, (_, i) => ({ partitionId: i, leader: 0 }))
  const messages = Array.from({ length: 3_000 }, (_, i) => ({ key: `acct_${i % 7}:user_${i % 113}`, value: Buffer.from(String(i)) }))
  const args = { topic: 'events', partitionMetadata, messages, partitioner: DefaultPartitioner() }
  t.same(ours(args), theirs(args))
  t.same(ours({ ...args, partitionMetadata: [] }), {})
})

t.test('the record encoder writes the bytes upstream writes', async (t) => {
  const fixed = src<(a: RecordArgs) => Enc>('protocol/recordBatch/record/v0/index.js')
  const original = upstream<(a: RecordArgs) => Enc>('protocol/recordBatch/record/v0/index.js')
  const values: Array<Buffer | string | null> = [randomBytes(600), randomBytes(0), randomBytes(63), randomBytes(64), randomBytes(8191), randomBytes(20_000), 'a string value é', '', null]
  const keys: Array<Buffer | string | null | undefined> = ['acct_1:user_1', Buffer.from('bytes key'), '', null, undefined, 'clé ü']
  const deltas = [0, 1, 63, 64, 8191, 8192, -1, -64, 2 ** 20, 2 ** 30 - 1]
  let n = 0
  for (const value of values) for (const key of keys) for (const d of deltas) {
    const a: RecordArgs = { offsetDelta: Math.abs(d), timestampDelta: d, key, value }
    if (!fixed(a).buffer.equals(original(a).buffer)) t.fail(`differs for ${JSON.stringify({ key: String(key), value: value?.length, d })}`)
    n++
  }
  t.pass(`${n} records the same`)
  // Outside the fast path (headers, large deltas): upstream's own function.
  const headers = { trace: 'x', many: ['a', 'b'] }
  t.ok(fixed({ key: 'k', value: 'v', headers }).buffer.equals(original({ key: 'k', value: 'v', headers }).buffer), 'with headers')
  t.ok(fixed({ key: 'k', value: 'v', timestampDelta: 2 ** 40 }).buffer.equals(original({ key: 'k', value: 'v', timestampDelta: 2 ** 40 }).buffer), 'a 64-bit timestamp delta')
  // And inside a record batch, as the produce request encodes it.
  const messages = Array.from({ length: 50 }, (_, i) => ({ key: `acct_1:user_${i}`, value: randomBytes(100 + 20 * i) }))
  const batchOf = async (enc: (a: RecordArgs) => unknown) =>
    (await RecordBatch({ records: messages.map((m, i) => enc({ ...m, offsetDelta: i, timestampDelta: 0 })), firstTimestamp: 1, maxTimestamp: 1 })).buffer
  t.ok((await batchOf(fixed)).equals(await batchOf(original)), 'a record batch of 50 (its CRC included) is the same')
})

t.test('the produce request writes the bytes upstream writes', async (t) => {
  const fixed = src('protocol/requests/produce/v3/request.js')
  const original = upstream('protocol/requests/produce/v3/request.js')
  const messagesOf = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => {
      const kind = (i + seed) % 7
      return {
        key: kind === 0 ? null : kind === 1 ? Buffer.from(`bytes_${i}`) : kind === 2 ? undefined : `acct_${seed}:user_${i} é`,
        value: kind === 3 ? null : kind === 4 ? `text é ${i}` : kind === 5 ? Buffer.alloc(0) : randomBytes(1 + ((i * 37 + seed) % 900)),
        ...(kind === 6 ? { headers: {} } : {}),
      }
    })
  const cases: Array<[string, object]> = [
    ['one record, not idempotent', { acks: 1, timeout: 30000, topicData: [{ topic: 'events', partitions: [{ partition: 0, messages: messagesOf(1, 0) }] }] }],
    ['idempotent, 3 partitions of 1, 40 and 2,500 (varints of 1-2 bytes)', {
      acks: -1, timeout: 30000, producerId: Long.fromValue(4242), producerEpoch: 3,
      topicData: [{ topic: 'events', partitions: [
        { partition: 2, firstSequence: 0, messages: messagesOf(1, 1) },
        { partition: 0, firstSequence: 17, messages: messagesOf(40, 2) },
        { partition: 5, firstSequence: 2 ** 31 - 10, messages: messagesOf(2_500, 3) },
      ] }],
    }],
    ['transactional, two topics, a producer id past 2^32', {
      acks: -1, timeout: 5000, transactionalId: 'ingest-tx-0 é', producerId: Long.fromValue('81985529216486895'), producerEpoch: 1,
      topicData: [
        { topic: 'events', partitions: [{ partition: 1, firstSequence: 5, messages: messagesOf(300, 4) }] },
        { topic: 'identifies', partitions: [{ partition: 3, firstSequence: 0, messages: messagesOf(7, 5) }, { partition: 4, messages: messagesOf(200, 6) }] },
      ],
    }],
    ['a producer id given as a number', { acks: -1, timeout: 1, producerId: 7, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: messagesOf(20, 7) }] }] }],
  ]
  const same = async (args: object) => {
    const ours = await withClock(1732300000123, async () => (await fixed(args).encode()).buffer as Buffer)
    const theirs = await withClock(1732300000123, async () => (await original(args).encode()).buffer as Buffer)
    return [ours.equals(theirs), theirs.length] as const
  }
  for (const [name, args] of cases) {
    const [equal, bytes] = await same(args)
    t.ok(equal, `${name}: the same ${bytes} bytes`)
    t.ok(fixed.encodeProduceV3(args) !== undefined, `${name}: written by the replacement`)
  }
  // What the replacement leaves to upstream: the same bytes, by upstream's own encoder.
  const others: Array<[string, object]> = [
    ['message timestamps', { acks: -1, timeout: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', timestamp: '1732300000999' }, { key: 'k', value: 'w', timestamp: 1732300000001 }] }] }] }],
    ['headers', { acks: -1, timeout: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', headers: { trace: 'x' } }] }] }] }],
    ['compression', { acks: -1, timeout: 1, compression: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: messagesOf(30, 8) }] }] }],
  ]
  for (const [name, args] of others) {
    t.equal(fixed.encodeProduceV3(args), undefined, `${name}: left to upstream`)
    if (name === 'compression') continue // gzip output is upstream's either way; compared it would only test zlib
    t.ok((await same(args))[0], `${name}: the same bytes`)
  }
})

t.test('the record decoder gives the object upstream gives', async (t) => {
  const fixed = src('protocol/recordBatch/record/v0/decoder.js')
  const original = upstream('protocol/recordBatch/record/v0/decoder.js')
  const encode = upstream<(a: RecordArgs) => Enc>('protocol/recordBatch/record/v0/index.js')
  const records: Buffer[] = []
  const values = [randomBytes(600), randomBytes(0), 'é text', null]
  const keys = ['acct_1:user_1', '', null]
  const deltas = [0, 1, 63, 64, 8191, -1, -64, 2 ** 27 - 1, 2 ** 27, 2 ** 30, 2 ** 40]
  const headerSets = [undefined, { trace: 'x' }, { many: ['a', 'b'] }]
  for (const value of values) for (const key of keys) for (const d of deltas) for (const headers of headerSets) {
    // What the batch decoder hands the record decoder: the record after its length.
    records.push(new Decoder(encode({ offsetDelta: Math.abs(d) % 2 ** 31, timestampDelta: d, key, value, headers }).buffer).readVarIntBytes())
  }
  const contexts = [
    { firstOffset: '0', firstTimestamp: '1732300000000', magicByte: 2, timestampType: 0, maxTimestamp: '1732300000000' },
    { firstOffset: '123456789', firstTimestamp: '-1', magicByte: 2, isControlBatch: true, timestampType: 0, maxTimestamp: '-1' },
    { firstOffset: '9007199254740990', firstTimestamp: '9007199254740990', magicByte: 2, timestampType: 0, maxTimestamp: '0' },
    { firstOffset: '5', firstTimestamp: '1732300000000', magicByte: 2, timestampType: 1, maxTimestamp: '1732300099999' },
  ]
  let n = 0
  for (const ctx of contexts) for (const r of records) {
    const a = new Decoder(r)
    const b = new Decoder(r)
    const ours = fixed(a, ctx)
    const theirs = original(b, ctx)
    if (JSON.stringify(ours) !== JSON.stringify(theirs) || ours.batchContext !== ctx || a.offset !== b.offset) t.fail(`differs: ${JSON.stringify({ ours, theirs })}`)
    n++
  }
  t.pass(`${n} records decoded the same`)
  t.same(Object.keys(fixed(new Decoder(records[0]), contexts[0])), Object.keys(original(new Decoder(records[0]), contexts[0])), 'fields in the same order')
})

t.test('the record batch decoder gives the batch upstream gives', async (t) => {
  type BatchDecoder = (d: unknown) => Promise<unknown>
  const fixed = src<BatchDecoder>('protocol/recordBatch/v0/decoder.js')
  const original = upstream<BatchDecoder>('protocol/recordBatch/v0/decoder.js')
  const encodeRecord = upstream<(a: RecordArgs) => Enc>('protocol/recordBatch/record/v0/index.js')
  const { Types } = src('protocol/message/compression/index.js') as { Types: Record<string, number> }
  const outcome = async (decode: BatchDecoder, bytes: Buffer) => {
    try {
      return JSON.stringify(await decode(new Decoder(bytes)))
    } catch (err) {
      return `threw ${(err as Error).name}: ${(err as Error).message}`
    }
  }
  // Values from a fixed pattern, not random bytes: a batch whose first record's length is wrong is decoded from
  // garbage after it, and some garbage sends upstream's decoder itself into a loop until memory runs out (a
  // header count read from a value's bytes, and past a buffer's end a varint reads as 0). These inputs are
  // ones upstream decodes or refuses at once.
  const pattern = (n: number, seed: number) =>
    Buffer.from(Array.from({ length: n }, (_, k) => (Math.imul(k + 1, 2_654_435_761) ^ Math.imul(seed + 1, 40_503)) >>> 24))
  const batchOf = async (compression: number, n: number, headers: RecordArgs['headers'], seed: number) => {
    const records = Array.from({ length: n }, (_, i) =>
      encodeRecord({
        key: i % 3 ? `acct_1:user_${i}` : null,
        value: i % 5 ? pattern(20 * i, seed * 64 + i) : null,
        offsetDelta: i,
        timestampDelta: i * 7 - 3,
        headers,
      }),
    )
    const batch = await RecordBatch({ records, firstTimestamp: 1_732_300_000_000, maxTimestamp: 1_732_300_000_999, compression, lastOffsetDelta: Math.max(0, n - 1) } as never)
    return batch.buffer
  }
  const batches: Array<{ name: string; bytes: Buffer }> = []
  for (const compression of [Types.None!, Types.GZIP!])
    for (const n of [0, 1, 50])
      for (const headers of [undefined, { trace: 'x', many: ['a', 'b'] }])
        batches.push({ name: `compression ${compression}, ${n} records, headers ${!!headers}`, bytes: await batchOf(compression, n, headers, 0) })
  // The first record's length (a one-byte varint at byte 61, after the batch's header and record count) made
  // shorter and longer than its fields: decoded in place, it would not end there, so upstream's way decides,
  // and the records after it are read from the wrong place. With seed 7 and +4, the in-place decoding once
  // ran upstream's record decoder over the whole batch and looped until memory ran out.
  for (let seed = 0; seed < 12; seed++) {
    const one = await batchOf(Types.None!, 50, undefined, seed)
    for (const change of [-4, -1, 1, 4]) {
      const bytes = Buffer.from(one)
      const length = bytes[61]! >> 1
      bytes[61] = (length + change) << 1
      batches.push({ name: `seed ${seed}, first record's length ${change > 0 ? '+' : ''}${change}`, bytes })
    }
  }
  for (const { name, bytes } of batches) t.equal(await outcome(fixed, bytes), await outcome(original, bytes), name)
})
