// The OpenAPI document itself (GET /openapi.json): what a fuzzer or a code generator reads from it
// must be what the service does. Real responses against it: test/contract/openapi.integration.test.ts.
import t from 'tap'
import { openApiDocument } from './openapi.js'
import { checkJsonSchema } from '../../../../test/support/contract.js'

const doc = openApiDocument() as Record<string, any>
const schemas = doc.components.schemas
const check = (name: string, value: unknown) => checkJsonSchema(schemas[name], value, doc)
const SENT = '2024-05-01T12:00:00Z'
const batch = (...events: unknown[]) => ({ sent_at: SENT, events })

t.test('date-times: the document refuses what the service refuses', async (t) => {
  for (const ts of [
    '2024-13-01T00:00:00Z',
    '2024-01-32T00:00:00Z',
    '2024-01-01T99:00:00Z',
    '1969-12-31T23:59:59Z',
    '2023-02-29T00:00:00Z',
    '2024-05-01',
    '2024-05-01 12:00:00Z',
    '2024-05-01T12:00:00+0100',
  ]) {
    t.not(check('EventBody', { event: 'x', user: { id: 'u' }, timestamp: ts }).length, 0, `event timestamp ${ts}`)
    t.not(
      check('BatchBody', batch({ type: 'event', event: 'x', user: { id: 'u' }, timestamp: ts })).length,
      0,
      `item timestamp ${ts}`,
    )
  }
  t.same(check('EventBody', { event: 'x', user: { id: 'u' }, timestamp: '2024-02-29T23:59:59.123456+05:30' }), [])
  t.same(
    check('BatchBody', { sent_at: '1969-12-31T23:59:59Z', events: [{ type: 'event', event: 'x', user: { id: 'u' } }] }),
    [],
    'sent_at is never stored',
  )
  t.not(
    check('BatchBody', { sent_at: '2024-02-30T00:00:00Z', events: [{ type: 'event', event: 'x', user: { id: 'u' } }] })
      .length,
    0,
  )
  const described = schemas.EventBody.properties.timestamp.description as string
  for (const words of ['YYYY-MM-DDThh:mm:ss', '1 to 9 digits', 'Z or ±hh:mm', 'a date alone', 'a space', '±hhmm'])
    t.match(described, words)
})

t.test('batch items: a oneOf of named kinds with a discriminator mapping, so generators can type them', async (t) => {
  t.same(schemas.BatchBody.properties.events.items, { $ref: '#/components/schemas/BatchItem' })
  t.same(schemas.BatchItem.oneOf, [
    { $ref: '#/components/schemas/BatchEventItem' },
    { $ref: '#/components/schemas/BatchIdentifyItem' },
  ])
  t.same(schemas.BatchItem.discriminator, {
    propertyName: 'type',
    mapping: { event: '#/components/schemas/BatchEventItem', identify: '#/components/schemas/BatchIdentifyItem' },
  })
  t.same(schemas.BatchEventItem.properties.type.const, 'event')
  t.same(schemas.BatchIdentifyItem.properties.type.const, 'identify')
  // Every discriminator in the document sits beside a oneOf of references (OpenAPI 3.1, Discriminator Object).
  const walk = (v: unknown, at: string) => {
    if (v === null || typeof v !== 'object') return
    const o = v as Record<string, any>
    if (o.discriminator !== undefined) {
      t.ok(
        Array.isArray(o.oneOf) && o.oneOf.every((s: any) => typeof s.$ref === 'string'),
        `${at}: discriminator over references`,
      )
    }
    if (o.$id !== undefined) t.fail(`${at}: $id would make #/ references inside it resolve against itself`)
    for (const [k, c] of Object.entries(o)) walk(c, `${at}/${k}`)
  }
  walk(doc, '#')
  t.same(
    check('BatchBody', batch({ type: 'event', name: 'x', user: { id: 'u' } }, { type: 'identify', user: { id: 'u' } })),
    [],
  )
  t.not(check('BatchBody', batch({ type: 'page', name: 'x', user: { id: 'u' } })).length, 0)
  t.not(
    check('BatchBody', batch({ type: 'event', event: 'x', name: {}, user: { id: 'u' } })).length,
    0,
    'name is checked beside event',
  )
})

t.test(
  'Content-Encoding is documented on both endpoints, in the request body, not as a header parameter',
  async (t) => {
    for (const p of ['/v1/event', '/v1/events']) {
      const op = doc.paths[p].post
      t.match(op.requestBody.description, /Content-Encoding: gzip, deflate or br/, p)
      // As a parameter, `br` would read as valid with any body (a fuzzer sends it with plain JSON).
      t.notOk(
        (op.parameters ?? []).some((x: any) => x.in === 'header' && /^content-encoding$/i.test(x.name)),
        `${p}: no header parameter`,
      )
    }
  },
)

t.test('413 documents details.limit_bytes', async (t) => {
  for (const p of ['/v1/event', '/v1/events']) {
    const schema = doc.paths[p].post.responses['413'].content['application/json'].schema
    const body = (details: unknown) => ({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', message: 'm', details } })
    t.same(checkJsonSchema(schema, body({ limit_bytes: 1_000_000 }), doc), [], p)
    t.not(checkJsonSchema(schema, body({}), doc).length, 0, `${p}: without limit_bytes`)
  }
})

t.test('trait caps, e-mail and bidi rules are in the document (H28-H30)', async (t) => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
  const ev = (user: unknown) => check('EventBody', { event: 'x', user })
  t.same(ev({ id: 'u', traits: keys(100) }), [])
  t.not(ev({ id: 'u', traits: keys(101) }).length, 0, '101 trait keys')
  t.not(ev({ id: 'u', traits: { ['k'.repeat(256)]: 1 } }).length, 0, 'a key of 256 characters')
  t.not(
    check('BatchBody', batch({ type: 'identify', user: { id: 'u' }, traits: keys(101) })).length,
    0,
    'identify traits',
  )
  t.same(ev({ id: 'u', email: 'a@example.com' }), [])
  t.same(ev({ id: 'u', email: '' }), [], 'empty means none')
  for (const email of ['nobody', 'a\t@x.io', `${'a'.repeat(250)}@x.io`])
    t.not(ev({ id: 'u', email }).length, 0, JSON.stringify(email))
  t.not(ev({ id: 'admin\u202Egnp.exe' }).length, 0, 'RLO in user.id')
  t.not(check('EventBody', { event: 'a\u2066', user: { id: 'u' } }).length, 0, 'isolate in the event name')
})

t.test('the 403 USER_SUPPRESSED answer of an erased, suppressed user id is documented (H55)', async (t) => {
  const answer = doc.paths['/v1/event'].post.responses['403']
  t.match(answer.description, /USER_SUPPRESSED/)
  t.same(answer.content['application/json'].schema, { $ref: '#/components/schemas/ErrorBody' })
})
