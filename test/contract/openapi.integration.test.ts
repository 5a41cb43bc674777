// Contract suite, OpenAPI (docs/api.md "OpenAPI"): GET /openapi.json, then real responses of the
// service (200 single and batch, 400, 401, 413, 415, 429) are checked against the response
// schemas and headers that document declares for them. No JSON-schema dependency: a small
// checker (test/support/contract.ts) covers the keywords the document uses.
import t from 'tap'
import { gzipSync } from 'node:zlib'
import { startServices } from '../support/harness.js'
import { http, checkJsonSchema, freshMinute, headerRecord } from '../support/contract.js'

t.test('responses match /openapi.json', async (t) => {
  const s = await startServices(t, {
    env: {
      PLANS_JSON: JSON.stringify({
        two: { requestsPerMinute: 2, eventsPerSecond: 1000, eventsPerMonth: 1000, emailsPerMonth: 0 },
      }),
    },
  })
  const { key } = await s.createKey({ type: 'live', plan: 'orbit' })

  const got = await http(s.ingestUrl, '/openapi.json', { method: 'GET' })
  t.equal(got.status, 200)
  t.match(got.headers['content-type'], /application\/json/)
  const doc = got.body
  t.equal(doc.openapi, '3.1.0')
  for (const p of ['/v1/event', '/v1/events']) {
    t.same(
      Object.keys(doc.paths[p].post.responses).sort(),
      // 403: USER_SUPPRESSED, a person erased with suppression (H55).
      ['200', '400', '401', '403', '408', '413', '415', '429', '503'],
      `${p}: documented statuses`,
    )
    t.ok(doc.paths[p].post.requestBody.content['application/json'].schema, `${p}: request schema`)
  }
  t.ok(doc.components.securitySchemes.bearer, 'bearer security scheme')

  /** Checks one real response against the document; returns the problems. */
  const conforms = (
    t: any,
    path: string,
    res: { status: number; headers: Headers | Record<string, string>; body: unknown },
    what: string,
  ) => {
    const op = doc.paths[path].post.responses[String(res.status)]
    if (!t.ok(op, `${what}: status ${res.status} is documented for ${path}`)) return
    const schema = op.content['application/json'].schema
    const problems = checkJsonSchema(schema, res.body, doc)
    t.same(problems, [], `${what}: body matches the ${res.status} schema`)
    const h = headerRecord(res.headers)
    for (const name of Object.keys(op.headers ?? {}))
      t.ok(h[name.toLowerCase()] !== undefined, `${what}: documented header ${name} present`)
  }

  t.test('the checker itself rejects wrong bodies (so the checks below can fail)', async (t) => {
    const ok = doc.paths['/v1/event'].post.responses['200'].content['application/json'].schema
    const err = doc.paths['/v1/event'].post.responses['400'].content['application/json'].schema
    t.not(
      checkJsonSchema(ok, { success: true, events_processed: 1 }, doc).length,
      0,
      'shape B alone is not the documented 200',
    )
    t.not(
      checkJsonSchema(
        ok,
        { success: 'yes', data: { processed_count: 1, failed_count: 0, results: [] }, events_processed: 1 },
        doc,
      ).length,
      0,
    )
    t.not(
      checkJsonSchema(err, { error: 'Invalid', code: 401 }, doc).length,
      0,
      'shape 2 is not the documented error body',
    )
    t.not(
      checkJsonSchema(
        ok,
        {
          success: true,
          data: { processed_count: 1, failed_count: 0, results: [{ index: 0, success: true, event_id: 'nope' }] },
          events_processed: 1,
        },
        doc,
      ).length,
      0,
      'event_id must be a UUID',
    )
  })

  t.test(
    'request bodies: the documented request schemas accept valid bodies and reject SPEC-removed forms',
    async (t) => {
      const ev = doc.components.schemas.EventBody
      const batch = doc.components.schemas.BatchBody
      t.same(
        checkJsonSchema(
          ev,
          { event: 'x', user: { id: 'u' }, timestamp: '2024-05-01T12:30:00.000Z', properties: {}, context: {} },
          doc,
        ),
        [],
      )
      t.not(checkJsonSchema(ev, { event: 'x', user: 'bare' }, doc).length, 0, 'bare-string user')
      t.not(checkJsonSchema(ev, { name: 'x', user: { id: 'u' } }, doc).length, 0, '`name` on /v1/event')
      t.same(
        checkJsonSchema(
          batch,
          {
            sent_at: '2024-05-01T12:30:00Z',
            events: [
              { type: 'event', name: 'x', user: { id: 'u' } },
              { type: 'identify', user: { id: 'u' }, traits: { plan: 'pro' } },
            ],
          },
          doc,
        ),
        [],
      )
      t.not(
        checkJsonSchema(batch, { events: [{ type: 'event', event: 'x', user: { id: 'u' } }] }, doc).length,
        0,
        'sent_at missing',
      )
    },
  )

  t.test('real responses match the documented schemas and headers', async (t) => {
    const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
      http(s.ingestUrl, path, {
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body,
      })
    const sentAt = new Date().toISOString()
    conforms(t, '/v1/event', await post('/v1/event', JSON.stringify({ event: 'x', user: { id: 'u' } })), '200 single')
    conforms(
      t,
      '/v1/event',
      await post('/v1/event', JSON.stringify({ event: 'x', user: { id: 'u' }, message_id: 'm-1' })),
      '200 single with message_id (UUIDv5)',
    )
    conforms(
      t,
      '/v1/events',
      await post(
        '/v1/events',
        JSON.stringify({
          sent_at: sentAt,
          events: [
            { type: 'event', event: 'x', user: { id: 'u' } },
            { type: 'identify', user: { id: 'u' } },
            { type: 'event', user: 'bad' },
          ],
        }),
      ),
      '200 batch with a failed item',
    )
    conforms(t, '/v1/event', await post('/v1/event', JSON.stringify({ user: 'bad' })), '400 VALIDATION_ERROR')
    conforms(
      t,
      '/v1/events',
      await post('/v1/events', JSON.stringify({ sent_at: sentAt, events: [{ type: 'event', user: { id: 'u' } }] })),
      '400 batch with details.results',
    )
    conforms(t, '/v1/events', await post('/v1/events', JSON.stringify({ events: [] })), '400 batch envelope')
    conforms(t, '/v1/event', await post('/v1/event', '{nope'), '400 INVALID_JSON')
    conforms(
      t,
      '/v1/event',
      await http(s.ingestUrl, '/v1/event', { headers: { 'content-type': 'application/json' }, body: '{}' }),
      '401 MISSING_AUTH_HEADER',
    )
    conforms(t, '/v1/event', await post('/v1/event', '{}', { authorization: 'Bearer nope' }), '401 INVALID_KEY_FORMAT')
    conforms(
      t,
      '/v1/event',
      await post('/v1/event', gzipSync(Buffer.alloc(2_000_000, 32)), { 'content-encoding': 'gzip' }),
      '413 gzip',
    )
    conforms(t, '/v1/events', await post('/v1/events', Buffer.alloc(10_000_001, 32)), '413 batch')
    conforms(t, '/v1/event', await post('/v1/event', 'x', { 'content-type': 'text/plain' }), '415')

    const small = await s.createKey({ type: 'live', plan: 'two' })
    await freshMinute()
    const body = JSON.stringify({ event: 'x', user: { id: 'u' } })
    for (let i = 0; i < 2; i++) await post('/v1/event', body, { authorization: `Bearer ${small.key}` })
    const limited = await post('/v1/event', body, { authorization: `Bearer ${small.key}` })
    t.equal(limited.status, 429)
    conforms(t, '/v1/event', limited, '429 RATE_LIMIT_EXCEEDED')
  })
})
