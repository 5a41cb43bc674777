// Deviation from kafkajs 2.2.4 (../../../../CHANGES.md, "crc32C"): CRC-32C (Castagnoli, reflected
// polynomial 0x82f63b78) eight bytes a step ("slicing by 8") instead of a byte a step: table k holds
// the CRC of a byte followed by k zero bytes. The same unsigned 32-bit result; the upstream file is
// kept as index.upstream.js, the reference of the differential test.
const TABLES = (() => {
  const t = new Int32Array(8 * 256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
    t[n] = c
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]
    for (let s = 1; s < 8; s++) {
      c = t[c & 0xff] ^ (c >>> 8)
      t[s * 256 + n] = c
    }
  }
  return t
})()

module.exports = buf => {
  const T = TABLES
  let crc = -1
  let i = 0
  const len = buf.length
  const end8 = len - (len & 7)
  for (; i < end8; i += 8) {
    const a = crc ^ (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24))
    crc =
      T[1792 + (a & 0xff)] ^
      T[1536 + ((a >>> 8) & 0xff)] ^
      T[1280 + ((a >>> 16) & 0xff)] ^
      T[1024 + (a >>> 24)] ^
      T[768 + buf[i + 4]] ^
      T[512 + buf[i + 5]] ^
      T[256 + buf[i + 6]] ^
      T[buf[i + 7]]
  }
  for (; i < len; i++) crc = T[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}
