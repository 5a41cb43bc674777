// The SDK's delivery promise (sdk/README.md "Tests"): 10,000 events sent by the SDK through a real ingest that is killed
// (SIGKILL, no drain) and restarted mid-stream all reach ClickHouse exactly once. The ingest runs
// as a child process; the projector in this process (harness). Requests cut off by the kill are
// retried with the same message_ids, so items Kafka already had are stored once (H16, A5).
import t from 'tap'
import { startServices, waitUntil } from '../../test/support/harness.js'
import { TrackingClient, type TrackingError } from '../src/index.js'
import { recordingFetch } from '../testing/recording-fetch.js'
import { killableIngest } from '../testing/ingest-process.js'

const TOTAL = 10_000
const KILL_AFTER = 3_000

t.test('10,000 events through an ingest killed and restarted mid-stream: each stored exactly once', async (t) => {
  const s = await startServices(t, { ingest: false })
  const { key } = await s.createKey({ plan: 'unlimited', type: 'live' })
  const ingest = await killableIngest(t, { ...s.env, LOG_LEVEL: 'warn' }, key)

  const rec = recordingFetch()
  const errors: TrackingError[] = []
  const client = new TrackingClient({
    apiKey: key,
    baseUrl: ingest.url,
    fetch: rec.fetch,
    onError: (e) => errors.push(e),
    maxQueueSize: TOTAL,
    // Faster retries than the defaults, and enough of them to outlast a restart on a busy machine.
    retryMinDelay: 50,
    retryMaxDelay: 2_000,
    maxRetries: 100,
  })

  const ids = new Set<string>()
  let killed = false
  for (let i = 0; i < TOTAL; i++) {
    ids.add(client.track('stream_item', { i }, { user: `user_${i % 50}` }))
    if (i % 100 === 99) await new Promise((r) => setImmediate(r))
    if (!killed && client.stats().delivered >= KILL_AFTER) {
      // Mid-stream: requests are in flight and more items are queued.
      t.ok(client.stats().inFlight > 0 || client.stats().queued > 0, 'killed with work outstanding')
      await ingest.killAndRestart()
      killed = true
    }
  }
  if (!killed) {
    // Slow machine: the stream was queued faster than it was sent; kill while it drains.
    await waitUntil(() => client.stats().delivered >= KILL_AFTER, 120_000, `${KILL_AFTER} events delivered`)
    t.ok(client.stats().inFlight > 0, 'killed with requests in flight')
    await ingest.killAndRestart()
    killed = true
  }
  await client.flush()

  t.same(
    errors.map((e) => `${e.code}: ${e.message}`),
    [],
    'no item reported as failed',
  )
  t.equal(client.stats().delivered, TOTAL, 'every event acknowledged')
  t.ok(
    rec.log.some((x) => x.status === 'network-error'),
    'requests failed while the ingest was down',
  )
  t.ok(client.stats().retries > 0, `and were retried (${client.stats().retries} retries)`)

  const db = s.database
  await s.waitForRows(`SELECT count() AS c FROM ${db}.events FINAL HAVING c >= ${TOTAL}`, 1, 120_000)
  // Let the projector finish whatever Kafka still holds (a duplicate would come last), then count.
  await waitUntil(
    async () => {
      // The projector's readiness carries its lag as a check: { lag: { ok: true, detail: '<n> records' } } (H62).
      const h = (await (await fetch(s.projectorUrl + '/health')).json()) as { checks?: { lag?: { detail?: string } } }
      return h.checks?.lag?.detail === '0 records'
    },
    60_000,
    'projector lag 0',
  )
  const [{ c }] = await s.query<{ c: string }>(`SELECT count() AS c FROM ${db}.events FINAL`)
  const [{ raw }] = await s.query<{ raw: string }>(`SELECT count() AS raw FROM ${db}.events`)
  t.comment(
    `rows before de-duplication: ${raw}; requests cut off by the kill: ${rec.log.filter((x) => x.status === 'network-error').length}`,
  )
  const [{ d }] = await s.query<{ d: string }>(`SELECT uniqExact(message_id) AS d FROM ${db}.events FINAL`)
  const stored = new Set(
    (await s.query<{ message_id: string }>(`SELECT DISTINCT message_id FROM ${db}.events`)).map((r) => r.message_id),
  )
  const missing = [...ids].filter((id) => !stored.has(id))
  const dupes = await s.query<{ message_id: string; n: string; ts: string }>(
    `SELECT message_id, count() AS n, groupArray(timestamp_ms) AS ts FROM ${db}.events FINAL GROUP BY message_id HAVING n > 1 LIMIT 5`,
  )
  t.same(missing, [], 'no message_id missing')
  t.equal(Number(d), TOTAL, 'every message_id stored')
  t.equal(Number(c), TOTAL, `FINAL count = ${TOTAL} (duplicates: ${JSON.stringify(dupes)})`)
})
