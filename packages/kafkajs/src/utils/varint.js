// Added to kafkajs 2.2.4 (../../CHANGES.md): kafkajs's zigzag varint of a 32-bit value, sized and
// written straight into a buffer, for the record and produce encoders that write a whole record or
// request into one buffer of the exact size (Encoder.sizeOfVarInt and Encoder.writeVarInt give the
// same bytes through an Encoder).

/** Bytes of the zigzag varint of a 32-bit value. */
const sizeOfVarInt = value => {
  let v = (value << 1) ^ (value >> 31)
  let bytes = 1
  while ((v & 0xffffff80) !== 0) {
    bytes++
    v >>>= 7
  }
  return bytes
}

/** Writes the zigzag varint of a 32-bit value at `at`; returns the next offset. */
const writeVarInt = (buf, at, value) => {
  let v = (value << 1) ^ (value >> 31)
  while ((v & 0xffffff80) !== 0) {
    buf[at++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  buf[at++] = v & 0x7f
  return at
}

/** An Encoder over bytes already written: what kafkajs's encoders return, without a copy. */
const encoderOf = (Encoder, buf, offset) => {
  const enc = Object.create(Encoder.prototype)
  enc.buf = buf
  enc.offset = offset
  return enc
}

module.exports = { sizeOfVarInt, writeVarInt, encoderOf }
