// Deviation from kafkajs 2.2.4 (../../../../../CHANGES.md, "produce request"): produce v3 (which
// v4-v7 reuse) whose `encode` writes the whole body in one buffer of the exact size, for uncompressed
// sends whose messages have no headers and no timestamps. Upstream builds the same bytes through an
// Encoder per record, per record batch (three), per partition, per topic and per request, each
// starting small, zero-filled and doubling, and each copied into the next. Any other send is encoded
// by the upstream request, kept unchanged as request.upstream.js.
const Long = require('../../../../utils/long')
const Encoder = require('../../../encoder')
const crc32C = require('../../../recordBatch/crc32C')
const { sizeOfVarInt, writeVarInt, encoderOf } = require('../../../../utils/varint')
const upstream = require('./request.upstream')

const COMPRESSION_NONE = 0
const TRANSACTIONAL_ATTRIBUTE = 16
// A partition's bytes besides its records: partition, record set size, first offset, batch length,
// leader epoch, magic, CRC, then attributes, last offset delta, first and max timestamp, producer id,
// producer epoch, first sequence and the record count.
const PARTITION_OVERHEAD = 4 + 4 + 8 + 4 + 4 + 1 + 4 + (2 + 4 + 8 + 8 + 8 + 2 + 4 + 4)

const writeInt64 = (buf, at, long) => {
  buf.writeInt32BE(long.getHighBits(), at)
  buf.writeInt32BE(long.getLowBits(), at + 4)
  return at + 8
}

/** Bytes of a key or value as writeVarIntBytes writes them (-1: null), or undefined for a type
 * upstream would stringify. */
const bytesOf = v => {
  if (v == null) return -1
  if (Buffer.isBuffer(v)) return v.length
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8')
  return undefined
}

const recordBodySize = (i, keyBytes, valueBytes) =>
  // attributes, timestamp delta (0), offset delta, key, value, header count (0)
  1 +
  1 +
  sizeOfVarInt(i) +
  sizeOfVarInt(keyBytes) +
  Math.max(0, keyBytes) +
  sizeOfVarInt(valueBytes) +
  Math.max(0, valueBytes) +
  1

/** The body's size, or undefined when the send is not one this encoder writes. */
const sizeOf = ({ transactionalId, compression, topicData }) => {
  if (compression !== COMPRESSION_NONE || !Array.isArray(topicData)) return undefined
  if (transactionalId != null && typeof transactionalId !== 'string') return undefined
  let size =
    2 + (transactionalId == null ? 0 : Buffer.byteLength(transactionalId, 'utf8')) + 2 + 4 + 4
  for (const { topic, partitions } of topicData) {
    if (typeof topic !== 'string' || !Array.isArray(partitions)) return undefined
    size += 2 + Buffer.byteLength(topic, 'utf8') + 4
    for (const { messages } of partitions) {
      if (!Array.isArray(messages) || messages.length === 0 || messages.length > 0x3fffffff) {
        return undefined
      }
      size += PARTITION_OVERHEAD
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i]
        if (m.timestamp != null) return undefined
        const h = m.headers
        if (h !== undefined && (h === null || typeof h !== 'object' || Object.keys(h).length > 0)) {
          return undefined
        }
        const keyBytes = bytesOf(m.key)
        const valueBytes = bytesOf(m.value)
        if (keyBytes === undefined || valueBytes === undefined) return undefined
        const body = recordBodySize(i, keyBytes, valueBytes)
        size += sizeOfVarInt(body) + body
      }
    }
  }
  return size
}

const writeString = (buf, at, s) => {
  const n = buf.write(s, at + 2, 'utf8')
  buf.writeInt16BE(n, at)
  return at + 2 + n
}

const writeRecords = (buf, at, messages) => {
  for (let i = 0; i < messages.length; i++) {
    const { key, value } = messages[i]
    const keyBytes = bytesOf(key)
    const valueBytes = bytesOf(value)
    at = writeVarInt(buf, at, recordBodySize(i, keyBytes, valueBytes))
    buf[at++] = 0 // attributes
    buf[at++] = 0 // timestamp delta
    at = writeVarInt(buf, at, i)
    at = writeVarInt(buf, at, keyBytes)
    if (keyBytes > 0) {
      at += Buffer.isBuffer(key) ? key.copy(buf, at) : buf.write(key, at, keyBytes, 'utf8')
    }
    at = writeVarInt(buf, at, valueBytes)
    if (valueBytes > 0) {
      at += Buffer.isBuffer(value) ? value.copy(buf, at) : buf.write(value, at, valueBytes, 'utf8')
    }
    buf[at++] = 0 // no headers
  }
  return at
}

/** One partition's record set: a record batch (magic 2) of the messages. */
const writePartition = (buf, at, { partition, firstSequence = 0, messages }, batch) => {
  // Upstream takes the time once per partition; with no message timestamps, first = max = now
  // and every record's delta is 0.
  const time = Long.fromValue(Date.now())
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
  at = buf.writeInt16BE(batch.attributes, at) // no compression, create time
  at = buf.writeInt32BE(messages.length - 1, at) // last offset delta
  at = writeInt64(buf, at, time)
  at = writeInt64(buf, at, time)
  at = writeInt64(buf, at, batch.producerId)
  at = buf.writeInt16BE(batch.producerEpoch, at)
  at = buf.writeInt32BE(firstSequence, at)
  at = buf.writeInt32BE(messages.length, at)
  at = writeRecords(buf, at, messages)
  buf.writeUInt32BE(crc32C(buf.subarray(bodyStart, at)), crcAt)
  buf.writeInt32BE(at - batchStart, batchLengthAt)
  buf.writeInt32BE(at - recordSetStart, recordSetSizeAt)
  return at
}

/** The body upstream's encoder writes, as an Encoder, or undefined for a send left to upstream. */
const encodeProduceV3 = args => {
  const {
    acks,
    timeout,
    transactionalId = null,
    producerId = Long.fromInt(-1),
    producerEpoch = 0,
    compression = COMPRESSION_NONE,
    topicData,
  } = args
  const size = sizeOf({ transactionalId, compression, topicData })
  if (size === undefined) return undefined
  const buf = Buffer.allocUnsafe(size)
  let at = 0
  at = transactionalId == null ? buf.writeInt16BE(-1, at) : writeString(buf, at, transactionalId)
  at = buf.writeInt16BE(acks, at)
  at = buf.writeInt32BE(timeout, at)
  at = buf.writeInt32BE(topicData.length, at)
  const batch = {
    attributes: transactionalId ? TRANSACTIONAL_ATTRIBUTE : 0,
    producerId: Long.fromValue(producerId),
    producerEpoch,
  }
  for (const { topic, partitions } of topicData) {
    at = writeString(buf, at, topic)
    at = buf.writeInt32BE(partitions.length, at)
    for (const partition of partitions) at = writePartition(buf, at, partition, batch)
  }
  if (at !== size) throw new Error(`produce request encoded ${at} bytes, expected ${size}`)
  return encoderOf(Encoder, buf, at)
}

module.exports = args => {
  const request = upstream(args)
  const encodeUpstream = request.encode
  request.encode = async () => encodeProduceV3(args) || encodeUpstream()
  return request
}
module.exports.encodeProduceV3 = encodeProduceV3
