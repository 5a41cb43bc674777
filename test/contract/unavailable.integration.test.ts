// Contract suite, failures (A4): when Kafka cannot take the records the answer is 503
// SERVICE_UNAVAILABLE with Retry-After and the rate-limit headers, no item is reported as
// accepted and the monthly quota is given back; a programmer error is a bare 500 without
// internals. The app is built from the started service's deps with a failing appender (or
// codec); the last case uses the real appender and a producer that reaches no broker.
import t from 'tap'
import type { AddressInfo } from 'node:net'
import { startServices, waitUntil } from '../support/harness.js'
import { http, expectError, checkJsonSchema } from '../support/contract.js'
import { createIngestApp, type Appender } from '../../services/ingest/src/http/app.js'
import { loadIngestConfig } from '../../services/ingest/src/config.js'
import { MemoryLimits, localLimiters } from '../../services/ingest/src/limits/index.js'
import { createLogger } from '../../services/shared/src/log.js'
import type { Codec } from '../../schemas/codec.js'
import { RecordAppender } from '../../services/ingest/src/kafka/record-appender.js'
import { createKafkaClient, logLevel } from '../../services/shared/src/kafka/client.js'

const EVENT = JSON.stringify({ event: 'order_completed', user: { id: 'u1' }, properties: { total: 9.5 } })
const BATCH = () =>
  JSON.stringify({
    sent_at: new Date().toISOString(),
    events: [
      { type: 'event', event: 'a', user: { id: 'u' } },
      { type: 'identify', user: { id: 'u' } },
      { type: 'event', event: 'b', user: { id: 'u' } },
    ],
  })

t.test('unavailable Kafka and internal errors', async (t) => {
  const s = await startServices(t, {
    env: {
      PLANS_JSON: JSON.stringify({
        q10: { requestsPerMinute: 1000, eventsPerSecond: 1000, eventsPerMonth: 10, emailsPerMonth: 0 },
      }),
    },
  })
  const deps = s.ingest!.deps
  const { key, accountId } = await s.createKey({ type: 'live', plan: 'q10' })
  const doc = (await http(s.ingestUrl, '/openapi.json', { method: 'GET' })).body

  /** An app on the service's keys, quota and codec with parts replaced. */
  async function appWith(parts: { appender?: Appender; codec?: Codec }) {
    let appended = 0
    const app = createIngestApp({
      cfg: loadIngestConfig(s.env),
      keys: deps.keys,
      limits: new MemoryLimits({ ...localLimiters(), quota: deps.quota }),
      codec: parts.codec ?? deps.codec,
      appender: parts.appender ?? { append: async (r) => void (appended += r.length) },
      log: createLogger('error' as any, { test: 'unavailable' }),
    })
    const server = app.listen(0, '127.0.0.1')
    await new Promise<void>((r) => server.once('listening', () => r()))
    t.teardown(() => new Promise<void>((r) => server.close(() => r())))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, appended: () => appended }
  }
  const post = (url: string, path: string, body: string) =>
    http(url, path, { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body })

  const expect503 = (t: any, r: Awaited<ReturnType<typeof post>>, what: string) => {
    expectError(t, r, 503, 'SERVICE_UNAVAILABLE', what)
    t.match(r.headers['retry-after'], /^[1-9]\d*$/, `${what}: Retry-After in seconds`)
    t.same(Object.keys(r.body).sort(), ['error', 'success'], `${what}: shape 1 only`)
    t.notMatch(r.text, /event_id|results|processed/, `${what}: no item reported as accepted`)
    t.same(
      checkJsonSchema(doc.paths['/v1/event'].post.responses['503'].content['application/json'].schema, r.body, doc),
      [],
      `${what}: matches the documented 503`,
    )
  }

  t.test('503 when the appender rejects; nothing reported accepted; quota given back (A4)', async (t) => {
    const failing = await appWith({
      appender: {
        append: async () => {
          throw new Error('KafkaJSNumberOfRetriesExceeded: broker 127.0.0.1:19092 ECONNREFUSED')
        },
      },
    })
    const usedBefore = deps.quota.used(accountId, Date.now())
    expect503(t, await post(failing.url, '/v1/event', EVENT), 'single')
    expect503(t, await post(failing.url, '/v1/events', BATCH()), 'batch')
    t.equal(deps.quota.used(accountId, Date.now()), usedBefore, 'the monthly quota reservation was released')
    // all ten monthly events are still available afterwards
    const working = await appWith({})
    for (let i = 0; i < 5; i++)
      t.equal((await post(working.url, '/v1/events', BATCH())).status, 200, `batch ${i} of 2 events after the failures`)
    t.equal(working.appended(), 15, 'records appended by the working app')
    const r = await post(working.url, '/v1/event', EVENT)
    expectError(t, r, 429, 'MONTHLY_EVENT_LIMIT_EXCEEDED', 'exactly the limit was available')
  })

  t.test('an appender that never answers is not reported as accepted before it does', async (t) => {
    let release!: (err?: unknown) => void
    const hanging = await appWith({
      appender: {
        append: () =>
          new Promise<void>((_, reject) => {
            release = reject
          }),
      },
    })
    const other = await s.createKey({ type: 'live', plan: 'orbit' })
    const pending = http(hanging.url, '/v1/event', {
      headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
      body: EVENT,
    })
    let settled = false
    void pending.then(() => (settled = true))
    await waitUntil(() => release !== undefined, 10_000, 'the append to start')
    t.notOk(settled, 'no answer while Kafka has not acknowledged')
    release(new Error('timeout'))
    expect503(t, await pending, 'after the append failed')
  })

  t.test('500 INTERNAL_ERROR in shape 1 without internals for a programmer error', async (t) => {
    const broken = await appWith({
      codec: {
        encode: () => {
          throw new TypeError("Cannot read properties of undefined (reading 'x') at /srv/app/schemas/codec.ts:42")
        },
      } as unknown as Codec,
    })
    const other = await s.createKey({ type: 'live', plan: 'orbit' })
    const r = await http(broken.url, '/v1/event', {
      headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
      body: EVENT,
    })
    expectError(t, r, 500, 'INTERNAL_ERROR')
    t.notMatch(r.text, /codec|Cannot read|TypeError|\/srv/, 'the cause is not in the body')
  })

  t.test('503 from the real RecordAppender and kafkajs producer when no broker answers', async (t) => {
    // The stack must stay up, so this producer points at a port where nothing listens. (A
    // disconnect() of the running producer is no failure: kafkajs reconnects and Kafka acks.)
    const dead = createKafkaClient({
      clientId: 'contract-dead',
      brokers: ['127.0.0.1:1'],
      logLevel: logLevel.NOTHING,
      retry: { retries: 1, initialRetryTime: 50 },
      connectionTimeout: 500,
    })
    const appender = new RecordAppender(
      () => dead.producer({ idempotent: true, maxInFlightRequests: 1, retry: { retries: 1, initialRetryTime: 50 } }),
      {
        lingerMs: 2,
        maxBatchRecords: 5000,
        maxBatchBytes: 900_000,
        transactional: false,
        poolSize: 1,
        flushTimeoutMs: 1500,
        maxQueuedRecords: 1000,
      },
      createLogger('error' as any, {}),
    )
    const started = appender.start().then(
      () => 'connected',
      () => 'closed',
    )
    const app = await appWith({ appender })
    const other = await s.createKey({ type: 'live', plan: 'orbit' })
    for (const [path, body] of [
      ['/v1/event', EVENT],
      ['/v1/events', BATCH()],
    ] as const) {
      const r = await http(app.url, path, {
        headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
        body,
      })
      expect503(t, r, `${path}, Kafka unreachable`)
    }
    await appender.close()
    t.equal(await started, 'closed', 'start() kept waiting for a broker until the appender was closed')
  })
})
