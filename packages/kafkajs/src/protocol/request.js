// Deviation from kafkajs 2.2.4 (../../CHANGES.md, "request framing"): the size-prefixed request
// (size, api key and version, correlation id, client id, body) written into one buffer of the exact
// size, for every request type. Upstream copies the body twice, into two Encoders that each start
// at 512 bytes and double, zero-filled: for a 1.5 MB produce, about 9 MB of writes. The same bytes;
// the upstream file is kept as request.upstream.js, the reference of the differential test.
const Encoder = require('./encoder')
const { encoderOf } = require('../utils/varint')

module.exports = async ({ correlationId, clientId, request }) => {
  const payload = await request.encode()
  const body = payload.buffer
  const clientIdBytes = clientId == null ? 0 : Buffer.byteLength(clientId, 'utf8')
  const size = 2 + 2 + 4 + 2 + clientIdBytes + body.length
  const buf = Buffer.allocUnsafe(4 + size)
  let at = buf.writeInt32BE(size, 0)
  at = buf.writeInt16BE(request.apiKey, at)
  at = buf.writeInt16BE(request.apiVersion, at)
  at = buf.writeInt32BE(correlationId, at)
  if (clientId == null) {
    at = buf.writeInt16BE(-1, at)
  } else {
    at = buf.writeInt16BE(clientIdBytes, at)
    at += buf.write(clientId, at, clientIdBytes, 'utf8')
  }
  at += body.copy(buf, at)
  return encoderOf(Encoder, buf, at)
}
