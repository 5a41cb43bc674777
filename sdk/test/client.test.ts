// The client's queue rules with a scripted fetch (no server: the HTTP behaviour against the real
// ingest is in sdk.integration.test.ts): bounded queue, flush() scope, shutdown, retries running out.
import t from 'tap'
import { TrackingClient, type TrackingError } from '../src/index.js'

type Script = (body: { events: Array<{ message_id: string }> }) => Response | Promise<Response>
const okFor = (b: { events: unknown[] }) =>
  new Response(
    JSON.stringify({
      success: true,
      data: {
        processed_count: b.events.length,
        failed_count: 0,
        results: b.events.map((_, index) => ({ index, success: true })),
      },
      events_processed: b.events.length,
    }),
    { status: 200 },
  )

function client(script: Script, o: Partial<ConstructorParameters<typeof TrackingClient>[0]> = {}) {
  const errors: Array<{ e: TrackingError; n: number }> = []
  const bodies: Array<{ events: Array<{ message_id: string }> }> = []
  const fetch = (async (_u: string, init: RequestInit) => {
    const body = JSON.parse(init.body as string)
    bodies.push(body)
    return script(body)
  }) as unknown as typeof globalThis.fetch
  const c = new TrackingClient({
    apiKey: 'svc_test_x',
    baseUrl: 'http://127.0.0.1:9',
    fetch,
    gzip: false,
    retryMinDelay: 1,
    retryMaxDelay: 2,
    onError: (e, items) => errors.push({ e, n: items.length }),
    ...o,
  })
  return { c, errors, bodies }
}

t.test('a full queue drops new items, counts and reports them', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const { c, errors } = client(async (b) => (await gate, okFor(b)), { maxQueueSize: 5, flushAt: 2, maxInFlight: 1 })
  for (let i = 0; i < 8; i++) c.track('e', {}, { user: 'u' })
  t.match(c.stats(), { dropped: 3, queued: 3, inFlight: 2 }, 'queued and in flight together are bounded')
  t.same(
    errors.map((x) => [x.e.code, x.n]),
    [
      ['QUEUE_FULL', 1],
      ['QUEUE_FULL', 1],
      ['QUEUE_FULL', 1],
    ],
  )
  release()
  await c.flush()
  t.match(c.stats(), { delivered: 5, dropped: 3, queued: 0, inFlight: 0 })
})

t.test('flush() sends partial batches and waits for them; the timer does too', async (t) => {
  const { c, bodies } = client(okFor, { flushInterval: 60_000 })
  c.track('a', {}, { user: 'u' })
  c.track('b', {}, { user: 'u' })
  t.equal(bodies.length, 0, 'a partial batch waits')
  await c.flush()
  t.equal(bodies.length, 1)
  t.equal(bodies[0].events.length, 2)
  await c.flush()
  t.equal(bodies.length, 1, 'nothing queued: no request')

  const timed = client(okFor, { flushInterval: 1 })
  timed.c.track('a', {}, { user: 'u' })
  while (timed.bodies.length === 0) await new Promise((r) => setTimeout(r, 5))
  t.equal(timed.bodies[0].events.length, 1, 'the interval sent it without flush()')
})

t.test('retries run out: the items are reported with the last error, retriable, and attempts', async (t) => {
  const { c, errors, bodies } = client(
    () =>
      new Response(JSON.stringify({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } }), {
        status: 503,
      }),
    { maxRetries: 3 },
  )
  const id = c.track('a', {}, { user: 'u' })
  await c.flush()
  t.equal(bodies.length, 4, 'first attempt and 3 retries')
  t.ok(
    bodies.every((b) => b.events[0].message_id === id),
    'always the same message_id',
  )
  t.equal(errors.length, 1)
  t.match(
    {
      code: errors[0].e.code,
      status: errors[0].e.status,
      retriable: errors[0].e.retriable,
      attempts: errors[0].e.attempts,
    },
    { code: 'SERVICE_UNAVAILABLE', status: 503, retriable: true, attempts: 4 },
  )
  t.match(c.stats(), { failed: 1, retries: 3, requests: 4 })
})

t.test('network errors are retried until they pass', async (t) => {
  let n = 0
  const { c, errors } = client((b) => {
    if (++n <= 2) throw new TypeError('fetch failed')
    return okFor(b)
  })
  c.track('a', {}, { user: 'u' })
  await c.flush()
  t.same(errors, [])
  t.match(c.stats(), { delivered: 1, retries: 2 })
})

t.test('a Retry-After beyond maxRetryAfter fails the batch at once', async (t) => {
  const { c, errors, bodies } = client(
    () =>
      new Response(JSON.stringify({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'later' } }), {
        status: 429,
        headers: { 'retry-after': '3600' },
      }),
    { maxRetryAfter: 60_000 },
  )
  c.track('a', {}, { user: 'u' })
  await c.flush()
  t.equal(bodies.length, 1)
  t.equal(errors[0].e.code, 'RATE_LIMIT_EXCEEDED')
})

t.test('shutdown flushes, then refuses new items', async (t) => {
  const { c, errors, bodies } = client(okFor)
  c.track('a', {}, { user: 'u' })
  await c.shutdown()
  t.equal(bodies.length, 1)
  c.track('b', {}, { user: 'u' })
  t.equal(errors[0].e.code, 'CLIENT_CLOSED')
  t.match(c.stats(), { delivered: 1, dropped: 1 })
})

t.test('shutdown gives up after its timeout and reports what is left', async (t) => {
  const { c, errors } = client(() => new Promise<Response>(() => undefined), { requestTimeout: 3_600_000 })
  c.track('a', {}, { user: 'u' })
  await c.shutdown(20)
  t.equal(errors[0].e.code, 'SHUTDOWN_TIMEOUT')
  t.match(c.stats(), { failed: 1, inFlight: 0, queued: 0 })
})

t.test('options are checked when the client is made', async (t) => {
  t.throws(() => new TrackingClient({ apiKey: 'k', baseUrl: 'http://x', flushAt: 101 }), RangeError)
  t.throws(() => new TrackingClient({ apiKey: 'k', baseUrl: 'http://x', maxBatchBytes: 10_000_000 }), RangeError)
  t.throws(() => new TrackingClient({ apiKey: '', baseUrl: 'http://x' }), TypeError)
  t.throws(() => new TrackingClient({ apiKey: 'k', baseUrl: 'not a url' }), TypeError)
})
