// The framed socket (A38): Kafka's byte stream cut into whole responses, however the reads split it.
import t from 'tap'
import { once } from 'node:events'
import net from 'node:net'
import { FramingError, ResponseFrames, framedSocketFactory, socketFactoryFor } from './framed-socket.js'

/** A response as a broker writes it: its size, a correlation id, then the body. */
function response(correlationId: number, body: string): Buffer {
  const b = Buffer.alloc(8 + Buffer.byteLength(body))
  b.writeInt32BE(4 + Buffer.byteLength(body), 0)
  b.writeInt32BE(correlationId, 4)
  b.write(body, 8)
  return b
}

const RESPONSES = [response(1, 'first'), response(2, ''), response(3, 'x'.repeat(300)), response(4, 'ü€ last')]
const STREAM = Buffer.concat(RESPONSES)

t.test('every split of the stream into three reads gives the same whole responses', async (t) => {
  let checked = 0
  for (let a = 0; a <= STREAM.length; a++) {
    for (let b = a; b <= STREAM.length; b += 7) {
      const got: Buffer[] = []
      const frames = new ResponseFrames((f) => got.push(f))
      // One read buffer reused for every read, as the socket's is.
      const read = Buffer.alloc(STREAM.length)
      for (const [from, to] of [
        [0, a],
        [a, b],
        [b, STREAM.length],
      ] as const) {
        STREAM.copy(read, 0, from, to)
        frames.push(read, to - from)
        read.fill(0xee)
      }
      if (got.length !== RESPONSES.length || got.some((f, i) => !f.equals(RESPONSES[i]!))) {
        t.fail(`split at ${a} and ${b}: ${got.map((f) => f.toString('hex')).join(' ')}`)
        return
      }
      checked++
    }
  }
  t.ok(checked > 1000, `${checked} splits, each giving the four responses unchanged by the reads' buffer being reused`)
})

t.test('a response of negative size is a framing error', async (t) => {
  const frames = new ResponseFrames(() => t.fail('no frame'))
  const bad = Buffer.from([0xff, 0xff, 0xff, 0xf0, 1, 2])
  t.throws(() => frames.push(bad, bad.length), FramingError)
})

t.test('a real socket: responses written in odd pieces arrive as one data chunk each, then the end', async (t) => {
  const server = net.createServer(async (conn) => {
    for (let i = 0; i < STREAM.length; i += 5) {
      conn.write(STREAM.subarray(i, i + 5))
      await new Promise((r) => setImmediate(r))
    }
    conn.end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const { port } = server.address() as net.AddressInfo
  let onConnect!: () => void
  const up = new Promise<void>((r) => (onConnect = r))
  const socket = framedSocketFactory({ host: '127.0.0.1', port, onConnect })
  const got: Buffer[] = []
  socket.on('data', (d: Buffer) => got.push(d))
  await up
  await once(socket, 'end')
  t.same(
    got.map((d) => d.toString('hex')),
    RESPONSES.map((r) => r.toString('hex')),
  )
  socket.destroy()
})

t.test("TLS and SASL keep kafkajs's socket; plain TCP gets the framed one", async (t) => {
  t.equal(socketFactoryFor({}), framedSocketFactory)
  t.equal(socketFactoryFor({ ssl: false }), framedSocketFactory)
  t.equal(socketFactoryFor({ ssl: true }), undefined)
  t.equal(socketFactoryFor({ sasl: { mechanism: 'plain', username: 'u', password: 'p' } }), undefined)
})
