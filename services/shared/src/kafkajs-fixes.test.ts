// The replacements of kafkajs-fixes.ts against kafkajs's own modules (not replaced in this process:
// the test loads kafkajs first), on random input: the same results, byte for byte.
import t from 'tap'
import { dirname } from 'node:path'
// kafkajs reads the clock once per partition; both encoders are run with the same frozen clock.
import { selfTestReplacements, withClock } from './kafkajs-fixes-self-test.js'
import { createRequire } from 'node:module'
import { randomBytes } from 'node:crypto'
import { Partitioners } from 'kafkajs'
import { crc32c, encodeProduceV3, encodeRequest, groupMessagesPerPartition, installKafkajsFixes, kafkajsFixesStatus, REPLACEMENTS, produceRequestV3, recordDecoder, recordEncoder, type BatchContext, type KafkajsEncoder, type KafkajsRequest, type LongClass, type ProduceArgs, type RecordArgs } from './kafkajs-fixes.js'

const require = createRequire(import.meta.url)
const src = (p: string) => require.resolve(`kafkajs/src/${p}`)
const originalCrc = require(src('protocol/recordBatch/crc32C/index.js')) as (b: Buffer) => number
const originalGroup = require(src('producer/groupMessagesPerPartition.js')) as typeof groupMessagesPerPartition
const Encoder = require(src('protocol/encoder.js'))
const originalRecord = require(src('protocol/recordBatch/record/v0/index.js')) as (a: RecordArgs) => KafkajsEncoder
const Decoder = require(src('protocol/decoder.js'))
const originalRecordDecoder = require(src('protocol/recordBatch/record/v0/decoder.js'))
const Long = require(src('utils/long.js')) as LongClass
const originalProduce = require(src('protocol/requests/produce/v3/request.js')) as (a: ProduceArgs) => KafkajsRequest
const originalRequest = require(src('protocol/request.js')) as ReturnType<typeof encodeRequest>
const { RecordBatch } = require(src('protocol/recordBatch/v0/index.js')) as { RecordBatch: (a: { records: unknown[]; firstTimestamp: number; maxTimestamp: number }) => Promise<{ buffer: Buffer }> }

t.test('crc32c: the same checksum as kafkajs for every length', async (t) => {
  for (let len = 0; len < 80; len++) {
    const b = randomBytes(len)
    t.equal(crc32c(b), originalCrc(b), `length ${len}`)
  }
  for (const len of [511, 4096, 100_003]) {
    const b = randomBytes(len)
    t.equal(crc32c(b), originalCrc(b), `length ${len}`)
    t.equal(crc32c(b.subarray(3)), originalCrc(b.subarray(3)), `length ${len - 3} at an odd offset`)
  }
})

t.test('groupMessagesPerPartition: the same groups, in order, as kafkajs', async (t) => {
  const partitionMetadata = Array.from({ length: 6 }, (_, i) => ({ partitionId: i, leader: 0 }))
  const messages = Array.from({ length: 3_000 }, (_, i) => ({ key: `acct_${i % 7}:user_${i % 113}`, value: Buffer.from(String(i)) }))
  const partitioner = Partitioners.DefaultPartitioner()
  const args = { topic: 'events', partitionMetadata, messages, partitioner: partitioner as never }
  t.same(groupMessagesPerPartition(args), originalGroup(args))
  t.same(groupMessagesPerPartition({ ...args, partitionMetadata: [] }), {})
})

t.test('the record encoder writes the bytes kafkajs writes', async (t) => {
  const fixed = recordEncoder(Encoder, originalRecord)
  const values: Array<Buffer | string | null> = [randomBytes(600), randomBytes(0), randomBytes(63), randomBytes(64), randomBytes(8191), randomBytes(20_000), 'a string value é', '', null]
  const keys: Array<Buffer | string | null | undefined> = ['acct_1:user_1', Buffer.from('bytes key'), '', null, undefined, 'clé ü']
  const deltas = [0, 1, 63, 64, 8191, 8192, -1, -64, 2 ** 20, 2 ** 30 - 1]
  let n = 0
  for (const value of values) for (const key of keys) for (const d of deltas) {
    const a: RecordArgs = { offsetDelta: Math.abs(d), timestampDelta: d, key, value }
    const ours = fixed(a).buffer
    const theirs = originalRecord(a).buffer
    if (!ours.equals(theirs)) t.fail(`differs for ${JSON.stringify({ key: String(key), value: value?.length, d })}`)
    n++
  }
  t.pass(`${n} records the same`)
  // Outside the fast path (headers, large deltas): kafkajs's own function.
  const headers = { trace: 'x', many: ['a', 'b'] }
  t.ok(fixed({ key: 'k', value: 'v', headers }).buffer.equals(originalRecord({ key: 'k', value: 'v', headers }).buffer), 'with headers')
  t.ok(fixed({ key: 'k', value: 'v', timestampDelta: 2 ** 40 }).buffer.equals(originalRecord({ key: 'k', value: 'v', timestampDelta: 2 ** 40 }).buffer), 'a 64-bit timestamp delta')
  // And inside a record batch, as the produce request encodes it.
  const messages = Array.from({ length: 50 }, (_, i) => ({ key: `acct_1:user_${i}`, value: randomBytes(100 + 20 * i) }))
  const batchOf = async (enc: (a: RecordArgs) => unknown) =>
    (await RecordBatch({ records: messages.map((m, i) => enc({ ...m, offsetDelta: i, timestampDelta: 0 })), firstTimestamp: 1, maxTimestamp: 1 })).buffer
  t.ok((await batchOf(fixed)).equals(await batchOf(originalRecord)), 'a record batch of 50 (its CRC included) is the same')
})


t.test('the produce request encoder writes the bytes kafkajs writes', async (t) => {
  const fixed = produceRequestV3(Encoder, Long, originalProduce)
  const messagesOf = (n: number, seed: number) =>
    Array.from({ length: n }, (_, i) => {
      const kind = (i + seed) % 7
      return {
        key: kind === 0 ? null : kind === 1 ? Buffer.from(`bytes_${i}`) : kind === 2 ? undefined : `acct_${seed}:user_${i} é`,
        value: kind === 3 ? null : kind === 4 ? `text é ${i}` : kind === 5 ? Buffer.alloc(0) : randomBytes(1 + ((i * 37 + seed) % 900)),
        ...(kind === 6 ? { headers: {} } : {}),
      }
    })
  const cases: Array<[string, ProduceArgs]> = [
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
  for (const [name, args] of cases) {
    const ours = await withClock(1732300000123, async () => (await fixed(args).encode()).buffer)
    const theirs = await withClock(1732300000123, async () => (await originalProduce(args).encode()).buffer)
    t.ok(ours.equals(theirs), `${name}: the same ${theirs.length} bytes`)
    t.ok(encodeProduceV3(Encoder, Long, args) !== undefined, `${name}: written by the replacement`)
  }
  // What the replacement leaves to kafkajs: the same bytes, by kafkajs's own encoder.
  const others: Array<[string, ProduceArgs]> = [
    ['message timestamps', { acks: -1, timeout: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', timestamp: '1732300000999' }, { key: 'k', value: 'w', timestamp: 1732300000001 }] }] }] }],
    ['headers', { acks: -1, timeout: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', headers: { trace: 'x' } }] }] }] }],
    ['compression', { acks: -1, timeout: 1, compression: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: messagesOf(30, 8) }] }] }],
  ]
  for (const [name, args] of others) {
    t.equal(encodeProduceV3(Encoder, Long, args), undefined, `${name}: left to kafkajs`)
    if (name === 'compression') continue // gzip output is kafkajs's either way; compared above it would only test zlib
    const ours = await withClock(1732300000123, async () => (await fixed(args).encode()).buffer)
    const theirs = await withClock(1732300000123, async () => (await originalProduce(args).encode()).buffer)
    t.ok(ours.equals(theirs), `${name}: the same bytes`)
  }
  // The framed request, as the connection writes it to the socket.
  const framed = encodeRequest(Encoder)
  for (const clientId of ['ingest', null, 'clïent']) {
    const request = originalProduce(cases[1]![1])
    const ours = await withClock(1, async () => (await framed({ correlationId: 77, clientId, request })).buffer)
    const theirs = await withClock(1, async () => (await originalRequest({ correlationId: 77, clientId, request })).buffer)
    t.ok(ours.equals(theirs), `framed request, client id ${clientId}: the same ${theirs.length} bytes`)
  }
})

t.test('the record decoder gives the object kafkajs gives', async (t) => {
  const fixed = recordDecoder(originalRecordDecoder)
  const records: Buffer[] = []
  const values = [randomBytes(600), randomBytes(0), 'é text', null]
  const keys = ['acct_1:user_1', '', null]
  const deltas = [0, 1, 63, 64, 8191, -1, -64, 2 ** 27 - 1, 2 ** 27, 2 ** 30, 2 ** 40]
  const headerSets = [undefined, { trace: 'x' }, { many: ['a', 'b'] }]
  for (const value of values) for (const key of keys) for (const d of deltas) for (const headers of headerSets) {
    // What the batch decoder hands the record decoder: the record after its length.
    records.push(new Decoder(originalRecord({ offsetDelta: Math.abs(d) % 2 ** 31, timestampDelta: d, key, value, headers }).buffer).readVarIntBytes())
  }
  const contexts: BatchContext[] = [
    { firstOffset: '0', firstTimestamp: '1732300000000', magicByte: 2, timestampType: 0, maxTimestamp: '1732300000000' },
    { firstOffset: '123456789', firstTimestamp: '-1', magicByte: 2, isControlBatch: true, timestampType: 0, maxTimestamp: '-1' },
    { firstOffset: '9007199254740990', firstTimestamp: '9007199254740990', magicByte: 2, timestampType: 0, maxTimestamp: '0' },
    { firstOffset: '5', firstTimestamp: '1732300000000', magicByte: 2, timestampType: 1, maxTimestamp: '1732300099999' },
  ]
  let n = 0
  for (const ctx of contexts) for (const r of records) {
    const a = new Decoder(r)
    const b = new Decoder(r)
    const ours = fixed(a, ctx) as { batchContext: unknown }
    const theirs = originalRecordDecoder(b, ctx)
    if (JSON.stringify(ours) !== JSON.stringify(theirs) || ours.batchContext !== ctx || a.offset !== b.offset) t.fail(`differs: ${JSON.stringify({ ours, theirs })}`)
    n++
  }
  t.pass(`${n} records decoded the same`)
  t.same(Object.keys(fixed(new Decoder(records[0]), contexts[0]) as object), Object.keys(originalRecordDecoder(new Decoder(records[0]), contexts[0])), 'fields in the same order')
})

t.test('installing after kafkajs was loaded changes nothing and says why', async (t) => {
  const s = await installKafkajsFixes()
  t.equal(s.applied, false)
  t.match(s.reason, /loaded before the fixes/)
  t.same(kafkajsFixesStatus(), s)
})

t.test('KAFKAJS_FIXES: on by default, off leaves kafkajs unchanged, anything else stops the process', async (t) => {
  const { spawnSync } = await import('node:child_process')
  const run = (value: string | undefined) => {
    const env = { ...process.env }
    delete env.KAFKAJS_FIXES
    if (value !== undefined) env.KAFKAJS_FIXES = value
    const code = `await import(${JSON.stringify(new URL('./kafkajs-fixes-install.ts', import.meta.url).href)}); const f = await import(${JSON.stringify(new URL('./kafkajs-fixes.ts', import.meta.url).href)}); await import('kafkajs'); console.log(JSON.stringify(f.kafkajsFixesStatus()))`
    return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { env, encoding: 'utf8' })
  }
  t.same(JSON.parse(run(undefined).stdout), { applied: true })
  t.same(JSON.parse(run('on').stdout), { applied: true })
  t.same(JSON.parse(run('off').stdout), { applied: false, reason: 'KAFKAJS_FIXES=off' })
  const bad = run('yes')
  t.not(bad.status, 0)
  t.match(bad.stderr, /KAFKAJS_FIXES must be on or off/)
})

// H38: the replacements are checked on fixed vectors against kafkajs's own modules before they are
// swapped in; one that differs is never installed, and the status says which (metric, log).
t.test('the self-test passes the real replacements and names one made to differ', async (t) => {
  const root = dirname(require.resolve('kafkajs/package.json'))
  t.same(await selfTestReplacements(root, REPLACEMENTS), [], 'every replacement gives kafkajs\'s output')
  const offByOne = { ...REPLACEMENTS, crc32c: (b: Uint8Array) => (REPLACEMENTS.crc32c(b) ^ 1) >>> 0 }
  t.same(await selfTestReplacements(root, offByOne), ['crc32c'])
  const lostByte = { ...REPLACEMENTS, encodeRequest: (E: any) => { const f = REPLACEMENTS.encodeRequest(E); return async (a: any) => { const e = await f(a); e.buf[e.offset - 1] ^= 0xff; return e } } }
  t.same(await selfTestReplacements(root, lostByte), ['encodeRequest'])
  const throwing = { ...REPLACEMENTS, recordDecoder: () => () => { throw new Error('broken') } }
  t.same(await selfTestReplacements(root, throwing), ['recordDecoder'], 'one that throws fails too')
})

t.test('a replacement that differs from kafkajs is not installed, and kafkajs runs unchanged', async (t) => {
  const { spawnSync } = await import('node:child_process')
  const fixes = JSON.stringify(new URL('./kafkajs-fixes.ts', import.meta.url).href)
  const code = `const f = await import(${fixes});
    const broken = (b) => (f.REPLACEMENTS.crc32c(b) ^ 1) >>> 0;
    const status = await f.installKafkajsFixes({ ...f.REPLACEMENTS, crc32c: broken });
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    await import('kafkajs');
    const crc = require(require.resolve('kafkajs/src/protocol/recordBatch/crc32C/index.js'));
    const record = require(require.resolve('kafkajs/src/protocol/recordBatch/record/v0/index.js'));
    const report = await import(${JSON.stringify(new URL('./kafkajs-fixes-report.ts', import.meta.url).href)});
    const { createLogger } = await import(${JSON.stringify(new URL('./log.ts', import.meta.url).href)});
    const { Registry } = await import('prom-client');
    const registry = new Registry();
    report.kafkajsFixesGauges(registry, 'svc');
    const lines = [];
    report.logKafkajsFixes(createLogger('info', {}, (l) => lines.push(l)), 'slower');
    console.log(JSON.stringify({ status, crcIsBroken: crc === broken, crcOfAbc: crc(Buffer.from('abc')), recordIsKafkajs: !String(record).includes('isSmallInt'), metrics: await registry.metrics(), lines }))`
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: new URL('../../..', import.meta.url).pathname, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout)
  t.match(out.status, { applied: false, reason: /self-test failed: crc32c/, selfTestFailed: ['crc32c'] })
  t.equal(out.crcIsBroken, false, 'the broken checksum is not in place')
  t.equal(out.crcOfAbc, crc32c(Buffer.from('abc')), 'kafkajs computes CRC-32C itself')
  t.equal(out.recordIsKafkajs, true, 'no other replacement was swapped in either')
  t.match(out.metrics, /^svc_kafkajs_fixes_applied 0$/m, 'the metric says kafkajs runs unchanged')
  t.match(out.metrics, /^svc_kafkajs_fixes_self_test_failed 1$/m, 'and that a self-test failed')
  t.match(out.lines.join('\n'), /"level":"warn".*refused by their self-test.*crc32c/, 'a warning names the replacement')
})
