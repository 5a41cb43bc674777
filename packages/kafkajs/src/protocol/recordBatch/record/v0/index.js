// Deviation from kafkajs 2.2.4 (../../../../../CHANGES.md, "record encoder"): for records without
// headers whose offset and timestamp deltas fit 31 bits (what a producer without message timestamps
// sends), the same bytes written into one buffer of the exact size. Upstream encodes a record in a
// zero-filled 512-byte Encoder that a value of ~600 bytes outgrows (a second one and a copy), and
// sends each varint through a JS array, the 64-bit one through Long. Anything else is encoded by the
// upstream function, kept unchanged as index.upstream.js.
const Encoder = require('../../../encoder')
const { sizeOfVarInt, writeVarInt, encoderOf } = require('../../../../utils/varint')
const upstream = require('./index.upstream')

const isSmallInt = v =>
  typeof v === 'number' && Number.isInteger(v) && v >= -0x3fffffff && v <= 0x3fffffff

module.exports = args => {
  const { offsetDelta = 0, timestampDelta = 0, key, value, headers } = args
  if (
    (headers && Object.keys(headers).length > 0) ||
    !isSmallInt(offsetDelta) ||
    !isSmallInt(timestampDelta)
  ) {
    return upstream(args)
  }
  const keyBytes =
    key == null ? -1 : Buffer.isBuffer(key) ? key.length : Buffer.byteLength(String(key), 'utf8')
  const valueBytes =
    value == null
      ? -1
      : Buffer.isBuffer(value)
      ? value.length
      : Buffer.byteLength(String(value), 'utf8')
  // A zigzag varint of a value below 2^30 is the same whether written as 32 or 64 bits.
  const body =
    1 +
    sizeOfVarInt(timestampDelta) +
    sizeOfVarInt(offsetDelta) +
    sizeOfVarInt(keyBytes) +
    Math.max(0, keyBytes) +
    sizeOfVarInt(valueBytes) +
    Math.max(0, valueBytes) +
    1
  const buf = Buffer.allocUnsafe(sizeOfVarInt(body) + body)
  let at = writeVarInt(buf, 0, body)
  buf[at++] = 0 // attributes
  at = writeVarInt(buf, at, timestampDelta)
  at = writeVarInt(buf, at, offsetDelta)
  at = writeVarInt(buf, at, keyBytes)
  if (keyBytes > 0) {
    at += Buffer.isBuffer(key) ? key.copy(buf, at) : buf.write(String(key), at, keyBytes, 'utf8')
  }
  at = writeVarInt(buf, at, valueBytes)
  if (valueBytes > 0) {
    at += Buffer.isBuffer(value)
      ? value.copy(buf, at)
      : buf.write(String(value), at, valueBytes, 'utf8')
  }
  buf[at++] = 0 // no headers: a varint 0
  return encoderOf(Encoder, buf, at)
}
