// Six of kafkajs 2.2.4's internal modules, replaced by equivalents that give the same results with
// less CPU per record (issue 10). kafkajs stays the client (design card); these only take the place
// of pure functions it requires by path, before it loads them, and write (or read) byte for byte
// what the originals do (kafkajs-fixes.test.ts compares them on random input).
//
// Why: in sends of 2,500 records (what the group commit makes of batches of 100 under load),
// kafkajs spent about 28 µs of CPU per record, more than the whole request path of a batched event.
// A profile of those sends (BENCHMARKS.md) showed three costs that grow with the records, not with the
// bytes:
// - `producer/groupMessagesPerPartition.js` adds each message to its partition's list with
//   `[...current, message]`: a copy of the list per message, so quadratic in the records of a
//   partition in one send (about 400 per partition for 2,500 records over 6 partitions).
// - `protocol/recordBatch/record/v0/index.js` encodes a record in a zero-filled 512-byte buffer that
//   a value of ~600 bytes outgrows (a second zero-filled buffer and a copy), and each of its four
//   varints goes through a JS array and `Buffer.from`, the 64-bit one through kafkajs's `Long`.
// - `protocol/recordBatch/crc32C/index.js` computes CRC-32C a byte at a time.
// After those, the produce request itself (`protocol/requests/produce/v3/request.js`, which v4-v7 reuse)
// and its framing (`protocol/request.js`) built the request through an Encoder per record batch, partition,
// topic and request, each zero-filled, doubling and copied into the next: a third of what was left.
// And on the consuming side (the projector and the replay), `protocol/recordBatch/record/v0/decoder.js`
// turns every record's offset and timestamp into strings through `Long` arithmetic: about a tenth of
// a replay's CPU per record.
//
// The replacements apply only to the version they were written against, only if each gives kafkajs's
// own output on fixed input in this process (kafkajs-fixes-self-test.ts, H38), and only if kafkajs has
// not been loaded yet (its modules keep the functions they required): an entry point imports
// `kafkajs-fixes-install.ts` first. Otherwise kafkajs runs unchanged, which is only slower.
import { createRequire, Module } from 'node:module'
import { dirname, join } from 'node:path'
import { selfTestReplacements } from './kafkajs-fixes-self-test.js'

const require = createRequire(import.meta.url)

export const KAFKAJS_VERSION = '2.2.4'

// --- producer/groupMessagesPerPartition.js ---------------------------------------------------------

interface GroupArgs<M> {
  topic: string
  partitionMetadata: unknown[]
  messages: M[]
  partitioner: (args: { topic: string; partitionMetadata: unknown[]; message: M }) => number
}

/** The same partition -> messages object as kafkajs's, messages in order, built in one pass. */
export function groupMessagesPerPartition<M>({ topic, partitionMetadata, messages, partitioner }: GroupArgs<M>): Record<number, M[]> {
  if (partitionMetadata.length === 0) return {}
  const result: Record<number, M[]> = {}
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message })
    const list = result[partition]
    if (list) list.push(message)
    else result[partition] = [message]
  }
  return result
}

// --- protocol/recordBatch/crc32C -------------------------------------------------------------------

// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), eight bytes a step ("slicing by 8"): table k
// holds the CRC of a byte followed by k zero bytes. About twice as fast as a byte a step in V8.
const CRC_TABLES = (() => {
  const t = new Int32Array(8 * 256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
    t[n] = c
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!
    for (let s = 1; s < 8; s++) {
      c = t[c & 0xff]! ^ (c >>> 8)
      t[s * 256 + n] = c
    }
  }
  return t
})()

/** CRC-32C of the bytes, as an unsigned 32-bit number (what kafkajs's crc32C/index.js returns). */
export function crc32c(buf: Uint8Array): number {
  const T = CRC_TABLES
  let crc = -1
  let i = 0
  const len = buf.length
  const end8 = len - (len & 7)
  for (; i < end8; i += 8) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24))
    crc =
      T[1792 + (a & 0xff)]! ^ T[1536 + ((a >>> 8) & 0xff)]! ^ T[1280 + ((a >>> 16) & 0xff)]! ^ T[1024 + (a >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^ T[512 + buf[i + 5]!]! ^ T[256 + buf[i + 6]!]! ^ T[buf[i + 7]!]!
  }
  for (; i < len; i++) crc = T[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}

// --- protocol/recordBatch/record/v0/index.js --------------------------------------------------------

export interface KafkajsEncoder {
  buf: Buffer
  offset: number
  /** The bytes written (a getter of kafkajs's Encoder). */
  readonly buffer: Buffer
}
type EncoderClass = new (initialSize?: number) => KafkajsEncoder

export interface RecordArgs {
  offsetDelta?: number
  timestampDelta?: number | object
  key?: Buffer | string | null
  value?: Buffer | string | null
  headers?: Record<string, unknown>
}

/** Bytes of kafkajs's zigzag varint of a 32-bit value (Encoder.sizeOfVarInt). */
function sizeOfVarInt(value: number): number {
  let v = (value << 1) ^ (value >> 31)
  let bytes = 1
  while ((v & 0xffffff80) !== 0) {
    bytes++
    v >>>= 7
  }
  return bytes
}

/** Writes kafkajs's zigzag varint of a 32-bit value (Encoder.writeVarInt) at `at`; returns the next offset. */
function writeVarInt(buf: Buffer, at: number, value: number): number {
  let v = (value << 1) ^ (value >> 31)
  while ((v & 0xffffff80) !== 0) {
    buf[at++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  buf[at++] = v & 0x7f
  return at
}

const isSmallInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= -0x3fffffff && v <= 0x3fffffff

/**
 * kafkajs's Record v0 encoder for the records ingest sends (no headers, offset and timestamp deltas
 * that fit 31 bits): the same bytes in one buffer of the exact size. Anything else goes to
 * `original`, kafkajs's own function.
 */
export function recordEncoder(Encoder: EncoderClass, original: (args: RecordArgs) => KafkajsEncoder): (args: RecordArgs) => KafkajsEncoder {
  return (args: RecordArgs) => {
    const { offsetDelta = 0, timestampDelta = 0, key, value, headers } = args
    if ((headers && Object.keys(headers).length > 0) || !isSmallInt(offsetDelta) || !isSmallInt(timestampDelta)) return original(args)
    const keyBytes = key == null ? -1 : Buffer.isBuffer(key) ? key.length : Buffer.byteLength(String(key), 'utf8')
    const valueBytes = value == null ? -1 : Buffer.isBuffer(value) ? value.length : Buffer.byteLength(String(value), 'utf8')
    // A zigzag varint of a value below 2^30 is the same whether kafkajs writes it as 32 or 64 bits.
    const body = 1 + sizeOfVarInt(timestampDelta) + sizeOfVarInt(offsetDelta) +
      sizeOfVarInt(keyBytes) + Math.max(0, keyBytes) + sizeOfVarInt(valueBytes) + Math.max(0, valueBytes) + 1
    const size = sizeOfVarInt(body) + body
    const buf = Buffer.allocUnsafe(size)
    let at = writeVarInt(buf, 0, body)
    buf[at++] = 0 // attributes
    at = writeVarInt(buf, at, timestampDelta)
    at = writeVarInt(buf, at, offsetDelta)
    at = writeVarInt(buf, at, keyBytes)
    if (keyBytes > 0) at += Buffer.isBuffer(key) ? key.copy(buf, at) : buf.write(String(key), at, keyBytes, 'utf8')
    at = writeVarInt(buf, at, valueBytes)
    if (valueBytes > 0) at += Buffer.isBuffer(value) ? value.copy(buf, at) : buf.write(String(value), at, valueBytes, 'utf8')
    buf[at++] = 0 // no headers: a varint 0
    const enc = Object.create(Encoder.prototype) as KafkajsEncoder
    enc.buf = buf
    enc.offset = at
    return enc
  }
}

// --- protocol/requests/produce/v3/request.js (produce v3-v7) and protocol/request.js ---------------

interface LongLike {
  getHighBits(): number
  getLowBits(): number
}
export interface LongClass {
  fromInt(value: number): LongLike
  fromValue(value: unknown): LongLike
}

export interface ProduceMessage {
  key?: Buffer | string | null
  value?: Buffer | string | null
  headers?: Record<string, unknown> | null
  timestamp?: unknown
}
export interface ProduceArgs {
  acks: number
  timeout: number
  transactionalId?: string | null
  producerId?: unknown
  producerEpoch?: number
  compression?: number
  topicData: Array<{ topic: string; partitions: Array<{ partition: number; firstSequence?: number; messages: ProduceMessage[] }> }>
}
export interface KafkajsRequest {
  apiKey: number
  apiVersion: number
  apiName: string
  expectResponse: () => boolean
  encode: () => Promise<KafkajsEncoder>
}

const COMPRESSION_NONE = 0
const TRANSACTIONAL_ATTRIBUTE = 16
/** A partition's bytes besides its records: partition, record set size, first offset, batch length,
 * leader epoch, magic, CRC, then attributes, last offset delta, first and max timestamp, producer id,
 * producer epoch, first sequence and the record count. */
const PARTITION_OVERHEAD = 4 + 4 + 8 + 4 + 4 + 1 + 4 + (2 + 4 + 8 + 8 + 8 + 2 + 4 + 4)

function writeInt64(buf: Buffer, at: number, long: LongLike): number {
  buf.writeInt32BE(long.getHighBits(), at)
  buf.writeInt32BE(long.getLowBits(), at + 4)
  return at + 8
}

/** Bytes of a key or value as writeVarIntBytes writes them (-1: null), or undefined for a type kafkajs would stringify. */
function bytesOf(v: unknown): number | undefined {
  if (v == null) return -1
  if (Buffer.isBuffer(v)) return v.length
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8')
  return undefined
}

/**
 * The produce request body kafkajs's v3 encoder writes, in one buffer of the exact size, for
 * uncompressed sends whose messages have no headers and no timestamps (what ingest sends); undefined
 * for anything else, which kafkajs's own encoder then writes.
 *
 * kafkajs builds the same bytes through an Encoder per record, per record batch (three), per partition,
 * per topic and per request, each starting small, zero-filled and doubling, and each copied into the
 * next; and an object spread per message to call the record encoder. For sends of 2,500 records that
 * was about a third of kafkajs's CPU per record (BENCHMARKS.md).
 */
export function encodeProduceV3(Encoder: EncoderClass, Long: LongClass, args: ProduceArgs, now: () => number = Date.now): KafkajsEncoder | undefined {
  const { acks, timeout, transactionalId = null, producerId = Long.fromInt(-1), producerEpoch = 0, compression = COMPRESSION_NONE, topicData } = args
  if (compression !== COMPRESSION_NONE || !Array.isArray(topicData)) return undefined
  if (transactionalId != null && typeof transactionalId !== 'string') return undefined
  let size = 2 + (transactionalId == null ? 0 : Buffer.byteLength(transactionalId, 'utf8')) + 2 + 4 + 4
  for (const { topic, partitions } of topicData) {
    if (typeof topic !== 'string' || !Array.isArray(partitions)) return undefined
    size += 2 + Buffer.byteLength(topic, 'utf8') + 4
    for (const { messages } of partitions) {
      if (!Array.isArray(messages) || messages.length === 0 || messages.length > 0x3fffffff) return undefined
      size += PARTITION_OVERHEAD
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i]!
        if (m.timestamp != null) return undefined
        const h = m.headers
        if (h !== undefined && (h === null || typeof h !== 'object' || Object.keys(h).length > 0)) return undefined
        const keyBytes = bytesOf(m.key)
        const valueBytes = bytesOf(m.value)
        if (keyBytes === undefined || valueBytes === undefined) return undefined
        // attributes, timestamp delta (0), offset delta, key, value, header count (0)
        const body = 1 + 1 + sizeOfVarInt(i) + sizeOfVarInt(keyBytes) + Math.max(0, keyBytes) + sizeOfVarInt(valueBytes) + Math.max(0, valueBytes) + 1
        size += sizeOfVarInt(body) + body
      }
    }
  }

  const buf = Buffer.allocUnsafe(size)
  let at = 0
  if (transactionalId == null) at = buf.writeInt16BE(-1, at)
  else {
    const n = buf.write(transactionalId, at + 2, 'utf8')
    buf.writeInt16BE(n, at)
    at += 2 + n
  }
  at = buf.writeInt16BE(acks, at)
  at = buf.writeInt32BE(timeout, at)
  at = buf.writeInt32BE(topicData.length, at)
  const producerIdLong = Long.fromValue(producerId)
  const transactional = transactionalId ? TRANSACTIONAL_ATTRIBUTE : 0
  for (const { topic, partitions } of topicData) {
    const n = buf.write(topic, at + 2, 'utf8')
    buf.writeInt16BE(n, at)
    at += 2 + n
    at = buf.writeInt32BE(partitions.length, at)
    for (const { partition, firstSequence = 0, messages } of partitions) {
      // kafkajs takes the time once per partition; with no message timestamps, first = max = now and
      // every record's delta is 0.
      const time = Long.fromValue(now())
      at = buf.writeInt32BE(partition, at)
      const recordSetSizeAt = at
      at += 4
      const recordSetStart = at
      at = writeInt64(buf, at, Long.fromInt(0)) // first offset
      const batchLengthAt = at
      at += 4
      const batchStart = at
      at = buf.writeInt32BE(0, at) // partition leader epoch
      at = buf.writeInt8(2, at) // magic
      const crcAt = at
      at += 4
      const bodyStart = at
      at = buf.writeInt16BE(transactional, at) // attributes: no compression, create time
      at = buf.writeInt32BE(messages.length - 1, at) // last offset delta
      at = writeInt64(buf, at, time)
      at = writeInt64(buf, at, time)
      at = writeInt64(buf, at, producerIdLong)
      at = buf.writeInt16BE(producerEpoch, at)
      at = buf.writeInt32BE(firstSequence, at)
      at = buf.writeInt32BE(messages.length, at)
      for (let i = 0; i < messages.length; i++) {
        const { key, value } = messages[i]!
        const keyBytes = bytesOf(key)!
        const valueBytes = bytesOf(value)!
        const body = 1 + 1 + sizeOfVarInt(i) + sizeOfVarInt(keyBytes) + Math.max(0, keyBytes) + sizeOfVarInt(valueBytes) + Math.max(0, valueBytes) + 1
        at = writeVarInt(buf, at, body)
        buf[at++] = 0 // attributes
        buf[at++] = 0 // timestamp delta
        at = writeVarInt(buf, at, i)
        at = writeVarInt(buf, at, keyBytes)
        if (keyBytes > 0) at += Buffer.isBuffer(key) ? key.copy(buf, at) : buf.write(key as string, at, keyBytes, 'utf8')
        at = writeVarInt(buf, at, valueBytes)
        if (valueBytes > 0) at += Buffer.isBuffer(value) ? value.copy(buf, at) : buf.write(value as string, at, valueBytes, 'utf8')
        buf[at++] = 0 // no headers
      }
      buf.writeUInt32BE(crc32c(buf.subarray(bodyStart, at)), crcAt)
      buf.writeInt32BE(at - batchStart, batchLengthAt)
      buf.writeInt32BE(at - recordSetStart, recordSetSizeAt)
    }
  }
  if (at !== size) throw new Error(`produce request encoded ${at} bytes, expected ${size}`)
  const enc = Object.create(Encoder.prototype) as KafkajsEncoder
  enc.buf = buf
  enc.offset = at
  return enc
}

/** kafkajs's produce v3 request (v4-v7 reuse it), whose `encode` writes the body in one buffer when it can. */
export function produceRequestV3(Encoder: EncoderClass, Long: LongClass, original: (args: ProduceArgs) => KafkajsRequest): (args: ProduceArgs) => KafkajsRequest {
  return (args: ProduceArgs) => {
    const request = original(args)
    const encodeOriginal = request.encode
    request.encode = async () => encodeProduceV3(Encoder, Long, args) ?? encodeOriginal()
    return request
  }
}

/**
 * kafkajs's protocol/request.js: the size-prefixed request (size, api key and version, correlation id,
 * client id, body) in one buffer of the exact size. kafkajs copies the body twice, into two Encoders
 * that each start at 512 bytes and double, zero-filled: for a 1.5 MB produce, about 9 MB of writes.
 */
export function encodeRequest(Encoder: EncoderClass) {
  return async ({ correlationId, clientId, request }: { correlationId: number; clientId?: string | null; request: { apiKey: number; apiVersion: number; encode: () => Promise<KafkajsEncoder> } }): Promise<KafkajsEncoder> => {
    const payload = await request.encode()
    const body = payload.buffer
    const clientIdBytes = clientId == null ? 0 : Buffer.byteLength(clientId, 'utf8')
    const size = 2 + 2 + 4 + 2 + clientIdBytes + body.length
    const buf = Buffer.allocUnsafe(4 + size)
    let at = buf.writeInt32BE(size, 0)
    at = buf.writeInt16BE(request.apiKey, at)
    at = buf.writeInt16BE(request.apiVersion, at)
    at = buf.writeInt32BE(correlationId, at)
    if (clientId == null) at = buf.writeInt16BE(-1, at)
    else {
      at = buf.writeInt16BE(clientIdBytes, at)
      at += buf.write(clientId, at, clientIdBytes, 'utf8')
    }
    at += body.copy(buf, at)
    const enc = Object.create(Encoder.prototype) as KafkajsEncoder
    enc.buf = buf
    enc.offset = at
    return enc
  }
}

// --- protocol/recordBatch/record/v0/decoder.js -------------------------------------------------------

interface KafkajsDecoder {
  buffer: Buffer
  offset: number
  readInt8(): number
  readVarInt(): number
  readVarIntBytes(): Buffer | null
}

export interface BatchContext {
  firstOffset?: string
  firstTimestamp?: string
  magicByte?: number
  isControlBatch?: boolean
  timestampType?: number
  maxTimestamp?: string
}

const LOG_APPEND_TIME = 1

/** `base` (a decimal string of a 64-bit integer, as kafkajs keeps offsets and times) plus `delta`, as kafkajs's Long would print it; undefined when that needs 64-bit arithmetic. */
function addToDecimal(base: string | undefined, baseNumber: number, delta: number): string | undefined {
  if (delta === 0 && base !== undefined && Number.isSafeInteger(baseNumber)) return base
  const sum = baseNumber + delta
  return Number.isSafeInteger(baseNumber) && Number.isSafeInteger(sum) ? String(sum) : undefined
}

/**
 * kafkajs's Record v0 decoder without its `Long` arithmetic for the two numbers every record carries:
 * the offset and timestamp deltas are read as plain varints when they fit 28 bits, and added to the
 * batch's first offset and time as numbers while those stay below 2^53 (offsets and millisecond times
 * do). The same object, in the same field order. A record with headers, or numbers outside that
 * range, is decoded by `original` from its first byte.
 */
export function recordDecoder(original: (d: KafkajsDecoder, ctx?: BatchContext) => unknown): (d: KafkajsDecoder, ctx?: BatchContext) => unknown {
  let lastContext: BatchContext | undefined
  let firstOffsetNumber = NaN
  let firstTimestampNumber = NaN
  return (decoder: KafkajsDecoder, batchContext: BatchContext = {}) => {
    const start = decoder.offset
    const { firstOffset, firstTimestamp, magicByte, isControlBatch = false, timestampType, maxTimestamp } = batchContext
    if (batchContext !== lastContext) {
      lastContext = batchContext
      firstOffsetNumber = Number(firstOffset)
      firstTimestampNumber = Number(firstTimestamp)
    }
    const attributes = decoder.readInt8()
    const buf = decoder.buffer
    // The timestamp delta, a zigzag varlong: here only if it ends within 4 bytes.
    let at = decoder.offset
    let raw = 0
    let shift = 0
    let byte: number
    do {
      byte = buf[at++]!
      raw |= (byte & 0x7f) << shift
      shift += 7
    } while (byte >= 0x80 && shift < 28)
    if (byte >= 0x80) return fallback()
    decoder.offset = at
    const timestampDelta = (raw >>> 1) ^ -(raw & 1)
    const timestamp = timestampType === LOG_APPEND_TIME && maxTimestamp ? maxTimestamp : addToDecimal(firstTimestamp, firstTimestampNumber, timestampDelta)
    const offsetDelta = decoder.readVarInt()
    const offset = addToDecimal(firstOffset, firstOffsetNumber, offsetDelta)
    if (timestamp === undefined || offset === undefined) return fallback()
    const key = decoder.readVarIntBytes()
    const value = decoder.readVarIntBytes()
    // No headers: a varint 0 (one byte, 0). Anything else: kafkajs's own decoding.
    if (buf[decoder.offset] !== 0) return fallback()
    decoder.offset++
    return { magicByte, attributes, timestamp, offset, key, value, headers: {}, isControlRecord: isControlBatch, batchContext }

    function fallback() {
      decoder.offset = start
      return original(decoder, batchContext)
    }
  }
}

// --- installing -------------------------------------------------------------------------------------

/** What is swapped in; a test passes a broken one to see it refused. */
export interface Replacements {
  groupMessagesPerPartition: typeof groupMessagesPerPartition
  crc32c: (buf: Uint8Array) => number
  recordEncoder: typeof recordEncoder
  recordDecoder: typeof recordDecoder
  produceRequestV3: typeof produceRequestV3
  encodeRequest: typeof encodeRequest
}

export const REPLACEMENTS: Replacements = { groupMessagesPerPartition, crc32c, recordEncoder, recordDecoder, produceRequestV3, encodeRequest }

export interface FixesStatus {
  applied: boolean
  reason?: string
  /** The replacements whose self-test output differed from kafkajs's (H38): an alarm, not a choice. */
  selfTestFailed?: string[]
}

let status: FixesStatus = { applied: false, reason: 'not installed' }

/** Whether the replacements are in place in this process (ingest exports it as a metric). */
export function kafkajsFixesStatus(): FixesStatus {
  return status
}

/** Records that the replacements were turned off (KAFKAJS_FIXES=off). */
export function kafkajsFixesOff(): FixesStatus {
  return (status = { applied: false, reason: 'KAFKAJS_FIXES=off' })
}

/** Puts the replacements into Node's module cache, if kafkajs is the expected version, not loaded yet,
 * and every replacement gives kafkajs's output on the self-test's fixed input. */
export async function installKafkajsFixes(r: Replacements = REPLACEMENTS): Promise<FixesStatus> {
  if (status.applied) return status
  let root: string
  try {
    root = dirname(require.resolve('kafkajs/package.json'))
  } catch (err) {
    return (status = { applied: false, reason: `kafkajs not found: ${(err as Error).message}` })
  }
  const version = (require(join(root, 'package.json')) as { version: string }).version
  if (version !== KAFKAJS_VERSION) return (status = { applied: false, reason: `kafkajs ${version}, not ${KAFKAJS_VERSION}` })
  const src = (p: string) => join(root, 'src', p)
  const users = ['index.js', 'producer/sendMessages.js', 'protocol/recordBatch/v0/index.js', 'protocol/recordBatch/v0/decoder.js', 'protocol/requests/produce/index.js', 'protocol/requests/produce/v3/request.js', 'network/connection.js']
  const loaded = users.filter((p) => require.cache[src(p)] !== undefined)
  if (loaded.length > 0) return (status = { applied: false, reason: `kafkajs was loaded before the fixes (${loaded.join(', ')})` })
  const differ = await selfTestReplacements(root, r)
  if (differ.length > 0) return (status = { applied: false, reason: `self-test failed: ${differ.join(', ')} differ from kafkajs's output`, selfTestFailed: differ })

  const Encoder = require(src('protocol/encoder.js')) as EncoderClass
  const originalRecord = require(src('protocol/recordBatch/record/v0/index.js')) as (args: RecordArgs) => KafkajsEncoder
  const originalRecordDecoder = require(src('protocol/recordBatch/record/v0/decoder.js')) as Parameters<typeof recordDecoder>[0]
  const put = (path: string, exports: unknown) => {
    const file = src(path)
    const m = new Module(file)
    m.filename = file
    m.loaded = true
    m.exports = exports
    require.cache[file] = m
  }
  put('producer/groupMessagesPerPartition.js', r.groupMessagesPerPartition)
  put('protocol/recordBatch/crc32C/index.js', r.crc32c)
  put('protocol/recordBatch/record/v0/index.js', r.recordEncoder(Encoder, originalRecord))
  put('protocol/recordBatch/record/v0/decoder.js', r.recordDecoder(originalRecordDecoder))
  // After the record encoder: kafkajs's produce request loads it, and falls back to it.
  const Long = require(src('utils/long.js')) as LongClass
  const originalProduce = require(src('protocol/requests/produce/v3/request.js')) as (args: ProduceArgs) => KafkajsRequest
  put('protocol/requests/produce/v3/request.js', r.produceRequestV3(Encoder, Long, originalProduce))
  put('protocol/request.js', r.encodeRequest(Encoder))
  return (status = { applied: true })
}
