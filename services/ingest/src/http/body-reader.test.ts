// The body reader alone (H24), on in-process streams: limits after decompression, the inflate ratio,
// the deadline, the budget's refusal, corrupt input, and the three codings.
import t from 'tap'
import { PassThrough, Readable } from 'node:stream'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { contentCoding, readBody, INFLATE_ALLOWANCE_BYTES, type ReadBodyOptions } from './body-reader.js'
import { ServiceError } from '../errors.js'

const OPTS: ReadBodyOptions = { limit: 10_000_000, maxInflateRatio: 100, timeoutMs: 10_000 }
const from = (...chunks: Buffer[]) => Readable.from(chunks, { objectMode: false })
const noBudget = () => undefined

/** Text that compresses about 3 times, like real events. */
function varied(bytes: number): Buffer {
  let s = ''
  for (let i = 0; s.length < bytes; i++) s += `{"p${i}":${(i * 7919) % 100003},"u":"${(i * 104729).toString(36)}"},`
  return Buffer.from(s.slice(0, bytes))
}

t.test('the codings: gzip, x-gzip, deflate, br, none; others named', async (t) => {
  t.equal(contentCoding(undefined), 'identity')
  t.equal(contentCoding(''), 'identity')
  t.equal(contentCoding(' GZIP '), 'gzip')
  t.equal(contentCoding('x-gzip'), 'gzip')
  t.equal(contentCoding('Deflate'), 'deflate')
  t.equal(contentCoding('br'), 'br')
  t.same(contentCoding('zstd'), { unsupported: 'zstd' })
  t.same(contentCoding('gzip, br'), { unsupported: 'gzip, br' })
  const body = varied(300_000)
  t.same(await readBody(from(gzipSync(body)), 'gzip', OPTS, noBudget), body)
  t.same(await readBody(from(deflateSync(body)), 'deflate', OPTS, noBudget), body)
  t.same(await readBody(from(brotliCompressSync(body)), 'br', OPTS, noBudget), body)
  t.same(await readBody(from(body.subarray(0, 1000), body.subarray(1000)), 'identity', OPTS, noBudget), body)
})

t.test('413 past the limit after decompression, and past the inflate ratio', async (t) => {
  await t.rejects(readBody(from(Buffer.alloc(101)), 'identity', { ...OPTS, limit: 100 }, noBudget), {
    code: 'PAYLOAD_TOO_LARGE',
    status: 413,
  })
  // 9.5 MB of zeros in about 9 KB of gzip: under the 10 MB limit, but 1000 times its size.
  const bomb = gzipSync(Buffer.alloc(9_500_000, 0x20))
  t.ok(bomb.length < 20_000, `bomb is ${bomb.length} bytes`)
  let kept = 0
  await t.rejects(
    readBody(from(bomb), 'gzip', OPTS, (n) => void (kept += n)),
    { code: 'PAYLOAD_TOO_LARGE', status: 413, details: { max_inflate_ratio: 100 } },
  )
  // It arrives as one chunk, yet inflation stops within a zlib chunk of the allowance: the ratio is to
  // the input inflated so far.
  t.ok(kept <= INFLATE_ALLOWANCE_BYTES + 16 * 1024, `stopped inflating after ${kept} bytes`)
  // Within the allowance any ratio passes: one highly repetitive event.
  const event = Buffer.from(`{"event":"x","user":{"id":"u"},"properties":{"pad":"${'a'.repeat(32_000)}"}}`)
  t.same(await readBody(from(gzipSync(event)), 'gzip', OPTS, noBudget), event)
  // A compressed body larger than the limit itself.
  await t.rejects(readBody(from(varied(2000)), 'gzip', { ...OPTS, limit: 1000 }, noBudget), {
    code: 'PAYLOAD_TOO_LARGE',
  })
})

t.test('408 when the body stops arriving; the stream is left paused', async (t) => {
  const stalled = new PassThrough()
  stalled.write(gzipSync(varied(1000)).subarray(0, 100))
  await t.rejects(readBody(stalled, 'gzip', { ...OPTS, timeoutMs: 50 }, noBudget), {
    code: 'REQUEST_TIMEOUT',
    status: 408,
    headers: { Connection: 'close' },
  })
  t.ok(stalled.isPaused())
})

t.test('the budget sees every kept byte and its refusal ends the read', async (t) => {
  const body = varied(200_000)
  let seen = 0
  await readBody(from(gzipSync(body)), 'gzip', OPTS, (n) => void (seen += n))
  t.equal(seen, body.length)
  const refusal = new ServiceError('BODY_BYTES_IN_FLIGHT_EXCEEDED', 429, 'no')
  let taken = 0
  await t.rejects(
    readBody(from(body.subarray(0, 100_000), body.subarray(100_000)), 'identity', OPTS, (n) => {
      if (taken + n > 150_000) throw refusal
      taken += n
    }),
    refusal,
  )
})

t.test('corrupt or aborted input is 400 INVALID_JSON', async (t) => {
  await t.rejects(readBody(from(Buffer.from('not gzip at all')), 'gzip', OPTS, noBudget), { code: 'INVALID_JSON' })
  const aborted = new PassThrough()
  const p = readBody(aborted, 'identity', OPTS, noBudget)
  aborted.write('{"a":')
  aborted.destroy()
  await t.rejects(p, { code: 'INVALID_JSON' })
})
