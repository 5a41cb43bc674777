// Contract suite, request bodies and the HTTP surface: 415/413/400 INVALID_JSON (H7),
// VALIDATION_ERROR with every problem at once (H8, H9), batch envelope errors (H11),
// 404/405 in shape 1, CORS (H15), X-Forwarded-For from a trusted proxy (H14).
import t from 'tap'
import { gzipSync, deflateSync } from 'node:zlib'
import { startServices } from '../support/harness.js'
import { http, expectError } from '../support/contract.js'

const now = () => new Date().toISOString()

t.test('bodies and HTTP surface contract', async (t) => {
  const s = await startServices(t, { env: { IP_REQUESTS_PER_MINUTE: '10000' } })
  const { key } = await s.createKey({ type: 'live', plan: 'orbit' })
  const auth = { authorization: `Bearer ${key}` }
  const send = (
    path: string,
    body: string | Buffer,
    headers: Record<string, string> = { 'content-type': 'application/json' },
    method = 'POST',
  ) => http(s.ingestUrl, path, { method, headers: { ...auth, ...headers }, body })
  const event = JSON.stringify({ event: 'signup_completed', user: { id: 'u1' } })

  t.test('415 UNSUPPORTED_MEDIA_TYPE: missing or non-JSON Content-Type (H7)', async (t) => {
    for (const [what, headers] of [
      ['missing', {}],
      ['text/plain', { 'content-type': 'text/plain' }],
      ['form', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }],
      ['json lookalike', { 'content-type': 'application/jsonp' }],
      ['unsupported Content-Encoding', { 'content-type': 'application/json', 'content-encoding': 'compress' }],
    ] as const) {
      for (const path of ['/v1/event', '/v1/events']) {
        const r = await send(path, event, headers)
        expectError(t, r, 415, 'UNSUPPORTED_MEDIA_TYPE', `${path} ${what}`)
      }
    }
    const ok = await send('/v1/event', event, { 'content-type': 'Application/JSON; charset=utf-8' })
    t.equal(ok.status, 200, 'application/json with parameters, any case, is accepted')
    const suffix = await send('/v1/event', event, { 'content-type': 'application/ld+json' })
    t.equal(suffix.status, 200, 'a +json media type is JSON too')
  })

  t.test('413 PAYLOAD_TOO_LARGE: 1 MB single, 10 MB batch, measured after decompression (H7)', async (t) => {
    const big = (bytes: number) =>
      JSON.stringify({ event: 'x', user: { id: 'u' }, properties: { pad: 'a'.repeat(bytes) } })
    const r1 = await send('/v1/event', big(1_000_001))
    expectError(t, r1, 413, 'PAYLOAD_TOO_LARGE', 'single over 1 MB')
    const batchBody = JSON.stringify({
      sent_at: now(),
      events: [{ type: 'event', event: 'x', user: { id: 'u' }, properties: { pad: 'a'.repeat(10_000_001) } }],
    })
    const r2 = await send('/v1/events', batchBody)
    expectError(t, r2, 413, 'PAYLOAD_TOO_LARGE', 'batch over 10 MB')
    const r2b = await send(
      '/v1/events',
      JSON.stringify({
        sent_at: now(),
        events: [{ type: 'event', event: 'x', user: { id: 'u' }, properties: { pad: 'a'.repeat(2_000_000) } }],
      }),
    )
    t.not(r2b.status, 413, 'a 2 MB batch is under the batch limit (it fails later, on the 32 KB event rule)')
    expectError(t, r2b, 400, 'VALIDATION_ERROR', '2 MB batch item over 32 KB (H9)')

    // a small gzip body that inflates past the limit: 413, not a server that inflates it all
    const bomb = gzipSync(Buffer.from(big(50_000_000)))
    t.ok(bomb.length < 200_000, `compressed ${bomb.length} bytes`)
    const r3 = await send('/v1/event', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    expectError(t, r3, 413, 'PAYLOAD_TOO_LARGE', 'gzip single inflating to 50 MB')
    const r4 = await send('/v1/events', gzipSync(Buffer.from(batchBody)), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    })
    expectError(t, r4, 413, 'PAYLOAD_TOO_LARGE', 'gzip batch inflating past 10 MB')
    // no Content-Length (chunked) is measured too
    const r5 = await http(s.ingestUrl, '/v1/event', {
      headers: { ...auth, 'content-type': 'application/json' },
      body: big(1_200_000),
      chunked: true,
    })
    expectError(t, r5, 413, 'PAYLOAD_TOO_LARGE', 'chunked single over 1 MB, no Content-Length')
    const r6 = await http(s.ingestUrl, '/v1/event', {
      headers: { ...auth, 'content-type': 'application/json' },
      body: event,
      chunked: true,
    })
    t.equal(r6.status, 200, 'a small chunked body is fine')
  })

  t.test('gzip and deflate bodies are accepted (H7)', async (t) => {
    const r = await send('/v1/event', gzipSync(Buffer.from(event)), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    })
    t.equal(r.status, 200)
    t.equal(r.body.events_processed, 1)
    const b = await send(
      '/v1/events',
      gzipSync(
        Buffer.from(JSON.stringify({ sent_at: now(), events: [{ type: 'event', name: 'x', user: { id: 'u' } }] })),
      ),
      { 'content-type': 'application/json', 'content-encoding': 'GZIP' },
    )
    t.equal(b.status, 200, 'batch, upper-case GZIP')
    const d = await send('/v1/event', deflateSync(Buffer.from(event)), {
      'content-type': 'application/json',
      'content-encoding': 'deflate',
    })
    t.equal(d.status, 200, 'deflate')
    const bad = await send('/v1/event', Buffer.from('not gzip at all'), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    })
    expectError(t, bad, 400, 'INVALID_JSON', 'corrupt gzip stream')
  })

  t.test('400 INVALID_JSON (H7)', async (t) => {
    for (const [what, body] of [
      ['truncated', '{"event":"x","user":'],
      ['not JSON', 'hello'],
      ['empty body', ''],
      ['trailing garbage', '{"event":"x"} x'],
      ['single quotes', "{'event':'x'}"],
    ] as const) {
      for (const path of ['/v1/event', '/v1/events']) {
        const r = await send(path, body)
        expectError(t, r, 400, 'INVALID_JSON', `${path} ${what}`)
      }
    }
  })

  t.test('400 VALIDATION_ERROR on /v1/event: every problem, JSON-pointer paths (H8, H9)', async (t) => {
    const r = await send(
      '/v1/event',
      JSON.stringify({
        user: 'alice',
        timestamp: 'yesterday',
        properties: [1],
        context: 'web',
        message_id: 'm'.repeat(101),
      }),
    )
    expectError(t, r, 400, 'VALIDATION_ERROR')
    const errs = r.body.error.details.errors as Array<{ path: string; message: string }>
    t.same(
      errs.map((e) => e.path).sort(),
      ['/context', '/event', '/message_id', '/properties', '/timestamp', '/user'],
      'all six problems at once',
    )
    for (const e of errs) t.type(e.message, 'string')
    const user = errs.find((e) => e.path === '/user')!
    t.match(user.message, /object/, 'bare-string user: the object form is required')
    t.match(user.message, /\{"id"/, 'names {id}')
    t.match(user.message, /v1/, 'since v1')

    const n = await send('/v1/event', JSON.stringify({ name: 'signup', user: { id: 'u' } }))
    expectError(t, n, 400, 'VALIDATION_ERROR', '`name` on /v1/event')
    t.same(
      n.body.error.details.errors.map((e: any) => e.path),
      ['/event'],
    )
    t.match(n.body.error.details.errors[0].message, /"event"/, 'the message names `event`')

    const cases: Array<[string, unknown, string[]]> = [
      ['missing user', { event: 'x' }, ['/user']],
      ['missing user.id', { event: 'x', user: { email: 'a@b.c' } }, ['/user/id']],
      ['empty user.id and event', { event: '', user: { id: '' } }, ['/event', '/user/id']],
      ['numeric user.id', { event: 'x', user: { id: 42 } }, ['/user/id']],
      ['event name of 256 characters', { event: 'e'.repeat(256), user: { id: 'u' } }, ['/event']],
      ['control character in user.id', { event: 'x', user: { id: 'a\u0001b' } }, ['/user/id']],
      ['traits not an object', { event: 'x', user: { id: 'u', traits: 'pro' } }, ['/user/traits']],
      ['user.email not a string', { event: 'x', user: { id: 'u', email: 5 } }, ['/user/email']],
      ['impossible date', { event: 'x', user: { id: 'u' }, timestamp: '2024-02-30T00:00:00Z' }, ['/timestamp']],
      ['body is an array', [{ event: 'x', user: { id: 'u' } }], ['']],
      ['body is null', null, ['']],
      ['event over 32 KB', { event: 'x', user: { id: 'u' }, properties: { pad: 'a'.repeat(33 * 1024) } }, ['']],
    ]
    for (const [what, body, paths] of cases) {
      const res = await send('/v1/event', JSON.stringify(body))
      expectError(t, res, 400, 'VALIDATION_ERROR', what)
      t.same(res.body.error.details?.errors?.map((e: any) => e.path).sort(), paths, `${what}: paths`)
    }
    const edge = await send(
      '/v1/event',
      JSON.stringify({
        event: 'e'.repeat(255),
        user: { id: 'ü'.repeat(255) },
        timestamp: '2024-05-01T12:30:00',
        message_id: 'm'.repeat(100),
      }),
    )
    t.equal(
      edge.status,
      200,
      'limits themselves are accepted: 255 characters, offset-less timestamp, 100-char message_id',
    )
  })

  t.test('batch envelope errors: 400 VALIDATION_ERROR for the whole request (H11)', async (t) => {
    const item = { type: 'event', event: 'x', user: { id: 'u' } }
    const cases: Array<[string, unknown, string[]]> = [
      ['sent_at missing', { events: [item] }, ['/sent_at']],
      ['sent_at not a timestamp', { sent_at: 'now', events: [item] }, ['/sent_at']],
      ['events missing', { sent_at: now() }, ['/events']],
      ['events empty', { sent_at: now(), events: [] }, ['/events']],
      ['events not an array', { sent_at: now(), events: { 0: item } }, ['/events']],
      ['101 items', { sent_at: now(), events: Array(101).fill(item) }, ['/events']],
      ['both missing', {}, ['/events', '/sent_at']],
      ['body is an array', [item], ['']],
    ]
    for (const [what, body, paths] of cases) {
      const r = await send('/v1/events', JSON.stringify(body))
      expectError(t, r, 400, 'VALIDATION_ERROR', what)
      t.same(r.body.error.details.errors.map((e: any) => e.path).sort(), paths, `${what}: paths`)
      t.notOk(r.body.error.details.results, `${what}: no per-item results for an envelope error`)
    }
    const ok = await send('/v1/events', JSON.stringify({ sent_at: now(), events: Array(100).fill(item) }))
    t.equal(ok.status, 200, '100 items are accepted')
    t.equal(ok.body.events_processed, 100)
  })

  t.test('batch item errors name the item (H8, H11)', async (t) => {
    const r = await send(
      '/v1/events',
      JSON.stringify({
        sent_at: now(),
        events: [
          { type: 'event', event: 'ok', user: { id: 'u' } },
          { type: 'event', user: 'bob' },
          { type: 'click', event: 'x', user: { id: 'u' } },
          'not an object',
          { type: 'identify', user: { id: 'u' }, traits: [1] },
        ],
      }),
    )
    t.equal(r.status, 200)
    const res = r.body.data.results
    t.same(
      res.map((x: any) => x.success),
      [true, false, false, false, false],
    )
    t.same(res[1].error.details.errors.map((e: any) => e.path).sort(), ['/events/1/event', '/events/1/user'])
    t.match(res[1].error.details.errors.find((e: any) => e.path === '/events/1/user').message, /v1/)
    t.same(
      res[2].error.details.errors.map((e: any) => e.path),
      ['/events/2/type'],
    )
    t.same(
      res[3].error.details.errors.map((e: any) => e.path),
      ['/events/3'],
    )
    t.same(
      res[4].error.details.errors.map((e: any) => e.path),
      ['/events/4/traits'],
    )
    for (const x of res.slice(1)) {
      t.equal(x.error.code, 'VALIDATION_ERROR')
      t.type(x.error.message, 'string')
    }
  })

  t.test('404 and 405 in shape 1', async (t) => {
    for (const [method, path] of [
      ['GET', '/'],
      ['POST', '/v1/nope'],
      ['GET', '/v2/event'],
      ['POST', '/v1/event/extra'],
    ] as const) {
      const r = await http(s.ingestUrl, path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      })
      expectError(t, r, 404, 'NOT_FOUND', `${method} ${path}`)
      t.same(Object.keys(r.body).sort(), ['error', 'success'])
    }
    for (const [method, path] of [
      ['GET', '/v1/event'],
      ['PUT', '/v1/events'],
      ['DELETE', '/v1/event'],
      ['PATCH', '/v1/events'],
    ] as const) {
      const r = await http(s.ingestUrl, path, { method, headers: auth })
      expectError(t, r, 405, 'METHOD_NOT_ALLOWED', `${method} ${path}`)
      t.match(r.headers.allow, /POST/, `${method} ${path}: Allow names POST`)
    }
  })

  t.test('CORS preflight and headers on /v1/* (H15)', async (t) => {
    for (const path of ['/v1/event', '/v1/events']) {
      const p = await http(s.ingestUrl, path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, content-encoding',
        },
      })
      t.ok(p.status === 204 || p.status === 200, `${path}: preflight answered (${p.status})`)
      t.equal(p.headers['access-control-allow-origin'], '*')
      t.match(p.headers['access-control-allow-methods'], /POST/)
      for (const h of ['authorization', 'content-type', 'content-encoding'])
        t.match(p.headers['access-control-allow-headers']?.toLowerCase(), h)
      t.match(p.headers['access-control-max-age'], /^\d+$/)
    }
    const ok = await send('/v1/event', event, { 'content-type': 'application/json', origin: 'https://shop.example' })
    t.equal(ok.status, 200)
    t.equal(ok.headers['access-control-allow-origin'], '*', 'on a 200')
    for (const h of [
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'x-ratelimit-window',
      'retry-after',
    ]) {
      t.match(ok.headers['access-control-expose-headers']?.toLowerCase(), h, `exposes ${h}`)
    }
    const err = await http(s.ingestUrl, '/v1/event', {
      headers: { origin: 'https://shop.example', 'content-type': 'application/json' },
      body: event,
    })
    t.equal(err.status, 401)
    t.equal(err.headers['access-control-allow-origin'], '*', 'on an error too, so the browser can read it')
  })

  t.test('X-Forwarded-For is honoured from a trusted proxy (H14; loopback is trusted by default)', async (t) => {
    const r = await send('/v1/event', event, {
      'content-type': 'application/json',
      'x-forwarded-for': '198.51.100.1, 203.0.113.9',
      'user-agent': 'contract-test/1.0',
    })
    t.equal(r.status, 200)
    const id = r.body.data.results[0].event_id
    const [row] = await s.waitForRows<{ ip: string; user_agent: string; context: string }>(
      `SELECT ip, user_agent, context FROM ${s.database}.events FINAL WHERE event_id = '${id}'`,
    )
    t.equal(row.ip, '203.0.113.9', 'the nearest untrusted hop, not the spoofable leftmost one')
    t.same(JSON.parse(row.context), { ip: '203.0.113.9', user_agent: 'contract-test/1.0' })
  })
})
