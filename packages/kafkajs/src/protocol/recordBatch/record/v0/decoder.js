// Deviation from kafkajs 2.2.4 (../../../../../CHANGES.md, "record decoder"): the two numbers every
// record carries, its offset and timestamp deltas, are read as plain varints when they fit 28 bits
// and added to the batch's first offset and time as numbers while those stay below 2^53 (offsets and
// millisecond times do), instead of through Long arithmetic and back to strings. The same object, in
// the same field order. A record with headers, or numbers outside that range, is decoded by the
// upstream function (kept unchanged as decoder.upstream.js) from its first byte.
const TimestampTypes = require('../../../timestampTypes')
const upstream = require('./decoder.upstream')

/** `base` (a decimal string of a 64-bit integer, as kafkajs keeps offsets and times) plus `delta`,
 * as Long would print it; undefined when that needs 64-bit arithmetic. */
const addToDecimal = (base, baseNumber, delta) => {
  if (delta === 0 && base !== undefined && Number.isSafeInteger(baseNumber)) return base
  const sum = baseNumber + delta
  return Number.isSafeInteger(baseNumber) && Number.isSafeInteger(sum) ? String(sum) : undefined
}

// The batch's first offset and time as numbers, parsed once per batch (a batch decodes its records
// one after the other with the same context object).
let lastContext
let firstOffsetNumber = NaN
let firstTimestampNumber = NaN

/** The record at the decoder's offset, or undefined where upstream's decoding is needed (the decoder's
 * offset is then anywhere). Reads a bounded number of bytes whatever they hold, so the record batch decoder
 * can run it over a whole batch's buffer (../../v0/decoder.js). */
const decodeCommon = (decoder, batchContext) => {
  const { firstOffset, firstTimestamp, magicByte, timestampType, maxTimestamp } = batchContext
  const isControlBatch = batchContext.isControlBatch === undefined ? false : batchContext.isControlBatch
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
  let byte
  do {
    byte = buf[at++]
    raw |= (byte & 0x7f) << shift
    shift += 7
  } while (byte >= 0x80 && shift < 28)
  if (byte >= 0x80) return undefined
  decoder.offset = at
  const timestampDelta = (raw >>> 1) ^ -(raw & 1)
  const timestamp =
    timestampType === TimestampTypes.LOG_APPEND_TIME && maxTimestamp
      ? maxTimestamp
      : addToDecimal(firstTimestamp, firstTimestampNumber, timestampDelta)
  const offsetDelta = decoder.readVarInt()
  const offset = addToDecimal(firstOffset, firstOffsetNumber, offsetDelta)
  if (timestamp === undefined || offset === undefined) return undefined
  const key = decoder.readVarIntBytes()
  const value = decoder.readVarIntBytes()
  // No headers: a varint 0 (one byte, 0). Anything else: upstream's decoding.
  if (buf[decoder.offset] !== 0) return undefined
  decoder.offset++
  return {
    magicByte,
    attributes,
    timestamp,
    offset,
    key,
    value,
    headers: {},
    isControlRecord: isControlBatch,
    batchContext,
  }
}

module.exports = (decoder, batchContext = {}) => {
  const start = decoder.offset
  const record = decodeCommon(decoder, batchContext)
  if (record !== undefined) return record
  decoder.offset = start
  return upstream(decoder, batchContext)
}
module.exports.decodeCommon = decodeCommon
