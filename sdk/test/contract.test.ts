// The SDK cannot drift from the API: payloads it builds validate against the OpenAPI document
// (built by services/ingest/src/http/openapi.ts from the schemas the ingest enforces, and served at
// GET /openapi.json), its limits equal the API's, and its wire types and the API's schema types
// agree in both directions that matter (what the SDK sends the API accepts; what the API answers
// the SDK reads). The SDK itself never imports the ingest: only this test does.
import t from 'tap'
import { readFileSync } from 'node:fs'
import * as AjvModule from 'ajv'
import { openApiDocument } from '../../services/ingest/src/http/openapi.js'
import * as api from '../../services/ingest/src/validation/schemas.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import type { BatchBody, SuccessBody, ErrorBody } from '../../services/ingest/src/validation/schemas.js'
import { buildEvent, buildIdentify } from '../src/items.js'
import { batchBody, utf8Bytes } from '../src/batches.js'
import { TrackingClient, SDK_VERSION } from '../src/client.js'
import * as wire from '../src/wire.js'
import type { WireBatch, WireSuccessBody, WireErrorBody } from '../src/wire.js'

// ---- types: checked by `tsc --noEmit` (the root tsconfig includes sdk/)
const sent: BatchBody = {} as WireBatch
const answered: WireSuccessBody = {} as SuccessBody
const refused: WireErrorBody = {} as ErrorBody
void [sent, answered, refused]

const doc = openApiDocument() as { components: { schemas: Record<string, object> } }
const validator = (name: string) => {
  // OpenAPI's `discriminator` is an annotation to a JSON Schema validator.
  // ajv is CommonJS: under NodeNext its class is the default export's default.
  const Ajv = AjvModule.default.default ?? AjvModule.default
  const ajv = new Ajv({ strict: false, allErrors: true })
  // The whole document, so the schemas' #/components/... references resolve.
  ajv.addSchema(doc, 'openapi.json')
  return ajv.getSchema(`openapi.json#/components/schemas/${name}`)!
}

t.test('SDK_VERSION is the package version', async (t) => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  t.equal(SDK_VERSION, pkg.version)
})

t.test('the SDK limits are the API limits', async (t) => {
  t.equal(wire.MAX_BATCH_ITEMS, api.MAX_BATCH_ITEMS)
  t.equal(wire.MAX_EVENT_BYTES, api.MAX_EVENT_BYTES)
  t.equal(wire.MAX_MESSAGE_ID_LENGTH, api.MAX_MESSAGE_ID_LENGTH)
  t.equal(wire.MAX_NAME_LENGTH, api.MAX_NAME_LENGTH)
  t.equal(
    wire.BATCH_BODY_LIMIT_BYTES,
    loadIngestConfig({}).bodyLimits.batch,
    'the ingest default BATCH_BODY_LIMIT_BYTES',
  )
})

t.test('a sample of SDK payloads validates against the OpenAPI BatchBody', async (t) => {
  const check = validator('BatchBody')
  let n = 0
  const env = () => ({
    now: new Date(Date.UTC(2024, 4, 1, 12, 0, 0, n)),
    newId: () => `msg-${++n}`,
    context: { library: { name: 'sdk', version: '0' } },
  })
  const items = [
    buildEvent('signup_completed', undefined, { user: 'user_1' }, env()),
    buildEvent(
      'order_paid',
      { total: 12.5, items: [{ sku: 'a' }], paid: true, on: '2024-05-01' },
      { user: { id: 'u2', email: 'a@b.c', traits: { plan: 'pro' } } },
      env(),
    ),
    buildEvent(
      'x'.repeat(255),
      {},
      { user: 'é😀', context: { app_version: '1.2.3' }, timestamp: new Date(0), messageId: 'm'.repeat(100) },
      env(),
    ),
    buildIdentify('user_1', { plan: 'pro', email: 'a@b.c' }, {}, env()),
    buildIdentify('user_2', undefined, { email: 'x@y.z', timestamp: '2024-05-01T12:00:00+02:00' }, env()),
  ]
  const body = JSON.parse(
    batchBody(
      items.map((i) => ({ json: JSON.stringify(i) })),
      new Date(),
    ),
  )
  t.ok(check(body), JSON.stringify(check.errors))
  t.ok(check({ sent_at: new Date().toISOString(), events: Array(100).fill(items[0]) }), 'a full batch of 100')
  // The validator is not a yes-machine: the document refuses what the API refuses.
  t.notOk(check({ sent_at: 'now', events: items }), 'bad sent_at')
  t.notOk(check({ sent_at: new Date().toISOString(), events: Array(101).fill(items[0]) }), '101 items')
  t.notOk(check({ sent_at: new Date().toISOString(), events: [{ ...items[0], user: 'bare' }] }), 'bare-string user')
  t.notOk(
    check({ sent_at: new Date().toISOString(), events: [{ ...items[0], message_id: 'm'.repeat(101) }] }),
    'long message_id',
  )
})

/** A client whose requests are recorded and answered 200, as ingest answers them. */
function recordingClient(t: { fail(msg: string): void }, options: { anonymousId?: string } = {}) {
  const bodies: string[] = []
  const fetch = (async (_url: string, init: RequestInit) => {
    bodies.push(init.body as string)
    return new Response(
      JSON.stringify({
        success: true,
        data: { processed_count: 1, failed_count: 0, results: [] },
        events_processed: 1,
      }),
      { status: 200 },
    )
  }) as unknown as typeof globalThis.fetch
  const client = new TrackingClient({
    apiKey: 'svc_test_x',
    baseUrl: 'http://127.0.0.1:1',
    fetch,
    gzip: false,
    onError: () => t.fail('no error'),
    ...options,
  })
  return { bodies, client }
}

t.test('what a client really sends validates, item JSON within the API limit', async (t) => {
  const check = validator('BatchBody')
  const { bodies, client: c } = recordingClient(t)
  c.identify('user_1', { plan: 'pro' })
  c.track('page_viewed', { path: '/' })
  c.track('order_paid', { total: 3 }, { user: { id: 'u2', email: 'a@b.c' } })
  await c.flush()
  t.equal(bodies.length, 1)
  const body = JSON.parse(bodies[0])
  t.ok(check(body), JSON.stringify(check.errors))
  t.equal(
    new Set(body.events.map((e: { message_id: string }) => e.message_id)).size,
    3,
    'every item has its own message_id',
  )
  for (const e of body.events) t.ok(utf8Bytes(JSON.stringify(e)) <= api.MAX_EVENT_BYTES)
  t.same(body.events[1].user, { id: 'user_1' }, 'identify set the default user')
})

t.test('an anonymous visitor, then identify and alias: the bodies validate against the document', async (t) => {
  const check = validator('BatchBody')
  const { bodies, client: c } = recordingClient(t, { anonymousId: 'anon_42' })
  t.equal(c.anonymousId, 'anon_42')
  c.track('page_viewed', { path: '/pricing' })
  c.identify('ada', { plan: 'pro' })
  c.track('order_paid', { total: 3 })
  c.alias('ada_old_account', 'ada')
  await c.flush()
  const body = JSON.parse(bodies[0]!)
  t.ok(check(body), JSON.stringify(check.errors))
  t.same(
    body.events.map((e: { type: string; user: { id: string }; anonymous_id?: string }) => [
      e.type,
      e.user.id,
      e.anonymous_id,
    ]),
    [
      ['event', 'anon_42', 'anon_42'],
      ['identify', 'ada', 'anon_42'],
      ['event', 'ada', 'anon_42'],
      ['identify', 'ada', 'ada_old_account'],
    ],
    'anonymous first, then known; every item carries the anonymous id, the alias its previous id',
  )
})

t.test('the API answers the SDK reads validate against the document too', async (t) => {
  const ok = validator('SuccessBody')
  t.ok(
    ok({
      success: true,
      data: {
        processed_count: 1,
        failed_count: 1,
        results: [
          { index: 0, success: true, event_id: '0190a0a0-0000-7000-8000-000000000000' },
          { index: 1, success: false, error: { code: 'VALIDATION_ERROR', message: 'm' } },
        ],
      },
      events_processed: 1,
    }),
  )
  const bad = validator('ErrorBody')
  t.ok(
    bad({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'm',
        details: { results: [{ index: 0, success: false, error: { code: 'VALIDATION_ERROR', message: 'm' } }] },
      },
    }),
  )
})
