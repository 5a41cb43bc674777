// A response that arrives as one whole chunk is decoded where it lies (CHANGES.md, "Fixes"): upstream
// kept the empty remainder a response left and concatenated the next chunk onto it, a copy of every
// response even when a chunk held exactly one (as the project's framed socket hands them over).
import t from 'tap'
import { src } from './support.js'

const Connection = src('network/connection.js')
const silent = { namespace: () => silent, info() {}, warn() {}, error() {}, debug() {} }

function connection() {
  const c = new Connection({
    host: '127.0.0.1',
    port: 9092,
    logger: silent,
    socketFactory: () => {
      throw new Error('not connected in this test')
    },
    requestTimeout: 1000,
    connectionTimeout: 1000,
  })
  const got: Array<{ correlationId: number; payload: Buffer }> = []
  c.requestQueue.fulfillRequest = (r: { correlationId: number; payload: Buffer }) => got.push(r)
  return { c, got }
}

function response(correlationId: number, body: string): Buffer {
  const b = Buffer.alloc(8 + Buffer.byteLength(body))
  b.writeInt32BE(4 + Buffer.byteLength(body), 0)
  b.writeInt32BE(correlationId, 4)
  b.write(body, 8)
  return b
}

t.test('whole responses, one a chunk, are decoded where they lie', async (t) => {
  const { c, got } = connection()
  const chunks = [response(1, 'a'.repeat(5000)), response(2, 'second'), response(3, '')]
  for (const chunk of chunks) c.processData(chunk)
  t.same(
    got.map((r) => [r.correlationId, r.payload.toString()]),
    [
      [1, 'a'.repeat(5000)],
      [2, 'second'],
      [3, ''],
    ],
  )
  for (const [i, r] of got.entries())
    t.equal(r.payload.buffer, chunks[i]!.buffer, `response ${i + 1}: its payload is a view of its own chunk, not a copy`)
})

t.test('responses split across chunks and several in one chunk still decode', async (t) => {
  const stream = Buffer.concat([response(1, 'first'), response(2, 'x'.repeat(70)), response(3, 'last')])
  for (let at = 0; at <= stream.length; at++) {
    const { c, got } = connection()
    c.processData(stream.subarray(0, at))
    c.processData(stream.subarray(at))
    const seen = got.map((r) => `${r.correlationId}:${r.payload.toString()}`).join(' ')
    if (seen !== `1:first 2:${'x'.repeat(70)} 3:last`) return t.fail(`split at ${at}: ${seen}`)
  }
  t.pass(`every split of ${stream.length} bytes into two chunks`)
})
