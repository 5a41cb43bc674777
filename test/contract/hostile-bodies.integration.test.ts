// Contract suite, hostile bodies (H24, H25; docs/api.md Errors): what a public key can make ingest
// hold is bounded. Stalled headers and bodies are cut; a body that inflates out of proportion is 413;
// the bytes being read are budgeted per account (429) and per instance (503), both with Retry-After;
// junk the envelope does not use is refused before it is parsed; an unknown Content-Encoding is named.
// And a valid batch near the 10 MB limit, gzip-compressed, still gets 200.
import t from 'tap'
import { gzipSync } from 'node:zlib'
import { connect, type Socket } from 'node:net'
import { startServices } from '../support/harness.js'
import { http, expectError } from '../support/contract.js'
import { stalledRequest, postHead, type StalledOutcome } from '../support/stalled-request.js'

const now = () => new Date().toISOString()
const MB = 1_000_000

t.test('hostile bodies', async (t) => {
  const s = await startServices(t, {
    projector: false,
    env: {
      IP_REQUESTS_PER_MINUTE: '10000',
      BODY_READ_TIMEOUT_MS: '3000',
      INGEST_HEADERS_TIMEOUT_MS: '1000',
      BODY_IN_FLIGHT_ACCOUNT_BYTES: String(10 * MB),
      BODY_IN_FLIGHT_INSTANCE_BYTES: String(15 * MB),
    },
  })
  const keys = await Promise.all([1, 2, 3].map(() => s.createKey({ type: 'live', plan: 'orbit' })))
  const auth = (i: number) => ({ authorization: `Bearer ${keys[i]!.key}` })
  const send = (path: string, body: string | Buffer, headers: Record<string, string>) =>
    http(s.ingestUrl, path, { headers: { ...auth(0), 'content-type': 'application/json', ...headers }, body })
  /** A batch request that sends `sent` of its `length` bytes and stops. */
  const stalledBatch = (key: number, sent: number, length = 9 * MB) =>
    stalledRequest(s.ingestUrl, postHead('/v1/events', length, auth(key)), Buffer.alloc(sent, 0x20))

  t.test('a stalled body is answered 408 REQUEST_TIMEOUT and its connection closed', async (t) => {
    const r = await stalledRequest(s.ingestUrl, postHead('/v1/event', 100_000, auth(0)), Buffer.from('{"event":"x",'))
    t.match(r, { status: 408, closed: true, body: { error: { code: 'REQUEST_TIMEOUT' } } })
    const gz = gzipSync(
      Buffer.from(JSON.stringify({ sent_at: now(), events: [{ type: 'event', event: 'x', user: { id: 'u' } }] })),
    )
    const z = await stalledRequest(
      s.ingestUrl,
      postHead('/v1/events', gz.length, { ...auth(0), 'Content-Encoding': 'gzip' }),
      gz.subarray(0, gz.length - 8),
    )
    t.match(z, { status: 408, closed: true }, 'a gzip body without its last bytes')
  })

  t.test('stalled headers are answered 408 by the server and the connection closed', async (t) => {
    const r = await stalledRequest(s.ingestUrl, 'POST /v1/event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty')
    t.ok(r.closed, 'closed')
    t.ok(r.status === 408 || r.status === 0, `status ${r.status}`)
  })

  t.test('a body that inflates over 100 times is 413 PAYLOAD_TOO_LARGE, under the size limit too', async (t) => {
    // A valid batch padded with 9.5 MB of spaces: about 9 KB of gzip.
    const batch = JSON.stringify({ sent_at: now(), events: [{ type: 'event', event: 'x', user: { id: 'u' } }] })
    const bomb = gzipSync(Buffer.from(batch.slice(0, -1) + ' '.repeat(9_500_000) + '}'))
    t.ok(bomb.length < 20_000, `${bomb.length} bytes of gzip`)
    const r = await send('/v1/events', bomb, { 'content-encoding': 'gzip' })
    expectError(t, r, 413, 'PAYLOAD_TOO_LARGE')
    t.equal(r.body.error.details.max_inflate_ratio, 100)
    t.equal(r.headers.connection, 'close')
  })

  t.test('bytes in flight: past the account budget 429 with Retry-After', async (t) => {
    // Two 6 MB stalls of one account pass its 10 MB: whichever crosses is refused, the other times out.
    const outcomes = await Promise.all([stalledBatch(0, 6 * MB), stalledBatch(0, 6 * MB)])
    const refused = outcomes.filter((o) => o.status === 429)
    t.equal(refused.length, 1, `statuses ${outcomes.map((o) => o.status)}`)
    t.match(refused[0], {
      closed: true,
      headers: { 'retry-after': '1' },
      body: { error: { code: 'BODY_BYTES_IN_FLIGHT_EXCEEDED' } },
    })
    t.equal(outcomes.filter((o) => o.status === 408).length, 1, 'the other is cut by the deadline')
  })

  t.test('bytes in flight: past the instance budget 503 with Retry-After', async (t) => {
    // Three accounts of 6 MB each pass the instance's 15 MB.
    const outcomes: StalledOutcome[] = await Promise.all([0, 1, 2].map((k) => stalledBatch(k, 6 * MB)))
    const refused = outcomes.filter((o) => o.status === 503)
    t.equal(refused.length, 1, `statuses ${outcomes.map((o) => o.status)}`)
    t.match(refused[0], {
      closed: true,
      headers: { 'retry-after': '1' },
      body: { error: { code: 'SERVICE_UNAVAILABLE' } },
    })
    const ok = await send('/v1/event', JSON.stringify({ event: 'x', user: { id: 'u' } }), {})
    t.equal(ok.status, 200, 'once they are gone, requests are read again')
  })

  t.test(
    'a batch whose ignored field holds 3,000,000 {} is refused before parsing: 400 JSON_TOO_COMPLEX',
    async (t) => {
      const junk = `{"sent_at":"${now()}","events":[{"type":"event","event":"x","user":{"id":"u"}}],"junk":[${'{},'.repeat(2_999_999)}{}]}`
      const r = await send('/v1/events', junk, {})
      expectError(t, r, 400, 'JSON_TOO_COMPLEX')
      t.same(r.body.error.details, { path: '', max_values: 1024 })
    },
  )

  t.test('an unknown Content-Encoding is 415 naming it', async (t) => {
    const r = await send('/v1/event', JSON.stringify({ event: 'x', user: { id: 'u' } }), { 'content-encoding': 'zstd' })
    expectError(t, r, 415, 'UNSUPPORTED_MEDIA_TYPE')
    t.match(r.body.error.message, /zstd/)
    t.same(r.body.error.details, { content_encoding: 'zstd', supported: ['gzip', 'deflate', 'br', 'identity'] })
  })

  t.test('a valid gzip batch near 10 MB of 100 events of 32 KB of small properties: 200', async (t) => {
    const properties: Record<string, number> = {}
    for (let i = 0; i < 2800; i++) properties[`p${i}`] = (i * 7919) % 1000
    const events = Array.from({ length: 100 }, (_, i) => ({
      type: 'event',
      event: 'x',
      user: { id: `u${i}` },
      properties,
    }))
    const text = JSON.stringify({ sent_at: now(), events }, null, 4)
    t.ok(text.length > 6 * MB && text.length < 10 * MB, `${text.length} bytes`)
    const r = await send('/v1/events', gzipSync(Buffer.from(text)), { 'content-encoding': 'gzip' })
    t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300))
    t.equal(r.body.events_processed, 100)
  })
})

t.test('connections past INGEST_MAX_CONNECTIONS are closed at once (H24)', async (t) => {
  const s = await startServices(t, { projector: false, env: { INGEST_MAX_CONNECTIONS: '2' } })
  const url = new URL(s.ingestUrl)
  const idle = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<Socket>((resolve) => {
          const c = connect(Number(url.port), url.hostname, () => resolve(c))
        }),
    ),
  )
  const third = await stalledRequest(s.ingestUrl, 'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  t.match(third, { status: 0, closed: true }, 'the third connection is closed unanswered')
  for (const c of idle) c.destroy()
  // The server sees the two close in its own time; a new connection is served once it has.
  let status = 0
  for (let i = 0; i < 50 && status !== 200; i++) {
    status = (
      await stalledRequest(s.ingestUrl, 'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    ).status
  }
  t.equal(status, 200, 'served again once they are closed')
})
