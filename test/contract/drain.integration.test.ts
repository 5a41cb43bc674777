// Health and graceful drain of ingest (H36): liveness and readiness answer separately, and on
// close (SIGTERM) every request already being handled gets its answer after its records are on
// Kafka, with `Connection: close` so keep-alive clients move to another instance; then the port is
// closed. The events answered 200 are in ClickHouse exactly once.
import t from 'tap'
import { Agent, request } from 'node:http'
import { randomUUID } from 'node:crypto'
import { startServices, waitUntil } from '../support/harness.js'

function post(
  url: string,
  agent: Agent,
  key: string,
  body: unknown,
): Promise<{ status: number; connection?: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url + '/v1/event',
      { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () =>
          resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }),
        )
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

t.test('health endpoints and a graceful drain', async (t) => {
  // A long linger keeps requests in flight (waiting for their flush) when close() is called.
  const s = await startServices(t, { env: { PRODUCER_LINGER_MS: '1000' } })
  const { key } = await s.createKey({ type: 'live', plan: 'orbit' })

  const live = await fetch(s.ingestUrl + '/health/live')
  t.equal(live.status, 200, 'live')
  // H36: readiness and metrics on the admin listener only; the public port keeps liveness.
  for (const path of ['/health/ready', '/health', '/metrics'])
    t.equal((await fetch(s.ingestUrl + path)).status, 404, `public ${path}: 404`)
  const ready = await fetch(s.ingestAdminUrl + '/health/ready')
  t.equal(ready.status, 200, 'ready')
  const rb = await ready.json()
  t.equal(rb.checks.kafka.ok, true)
  t.equal(rb.checks.accounts.ok, true)

  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  t.teardown(() => agent.destroy())
  // Warm keep-alive connections, so the drain has idle keep-alive sockets to deal with.
  for (let i = 0; i < 4; i++)
    t.equal(
      (await post(s.ingestUrl, agent, key, { event: 'warm', user: { id: 'u' }, message_id: randomUUID() })).status,
      200,
    )

  const bad = await fetch(s.ingestUrl + '/v1/event', {
    method: 'POST',
    headers: { authorization: 'Bearer svc_live_' + 'x'.repeat(40), 'content-type': 'application/json' },
    body: '{}',
  })
  t.equal(bad.status, 401)
  const metrics = await fetch(s.ingestAdminUrl + '/metrics')
  t.match(metrics.headers.get('content-type'), /^text\/plain/)
  const text = await metrics.text()
  t.match(
    text,
    /ingest_requests_total\{route="\/v1\/event",status="200",code="ok"\} 4\n/,
    'answers by route and status',
  )
  t.match(
    text,
    /ingest_requests_total\{route="\/v1\/event",status="401",code="INVALID_API_KEY"\} 1\n/,
    'errors by code',
  )
  t.match(text, /ingest_kafka_flush_seconds_count\{lane="plain",outcome="ok"\} [1-4]\n/, 'flush latency')
  t.match(text, /ingest_append_queue_records 0\n/)
  t.match(text, /ingest_ready 1\n/)
  t.match(text, /ingest_process_resident_memory_bytes \d+/, 'process metrics')

  const ids = Array.from({ length: 12 }, () => randomUUID())
  const inFlight = ids.map((id) =>
    post(s.ingestUrl, agent, key, { event: 'drained', user: { id: 'u' }, message_id: id }),
  )
  // Close only once the server holds all of them (parsed, records queued for the linger): a request
  // still in the socket buffer when the drain starts is indistinguishable from an idle connection.
  await waitUntil(
    () => s.ingest!.deps.appender.health().queuedRecords === ids.length,
    10_000,
    'the requests to be queued',
  )
  const closing = s.ingest!.close()
  const answers = await Promise.all(inFlight)
  await closing
  t.same(
    answers.map((a) => a.status),
    ids.map(() => 200),
    'every in-flight request was answered 200 during the drain',
  )
  t.ok(
    answers.every((a) => a.connection === 'close'),
    'answers during the drain ask the client to reconnect elsewhere',
  )
  await t.rejects(fetch(s.ingestUrl + '/health/live'), 'the port is closed after the drain')

  const eventIds = answers.map((a) => a.body.data.results[0].event_id)
  const rows = await s.waitForRows<{ event_id: string; n: string }>(
    `SELECT event_id, count() AS n FROM ${s.database}.events FINAL WHERE event = 'drained' GROUP BY event_id`,
    ids.length,
    30_000,
  )
  t.same(rows.map((r) => r.event_id).sort(), [...eventIds].sort(), 'every acknowledged event is in ClickHouse')
  t.ok(
    rows.every((r) => Number(r.n) === 1),
    'exactly once',
  )
})
