// npm-less helper: `npx tsx bench/measure-lag.ts [--rate 1000] [--seconds 30] [--keep]`
// Starts ingest and the projector in this process against the local stack (random topics, a fresh
// ClickHouse database, as the test harness does), posts batches of 100 events with an
// `unlimited`-plan live key at the given rate, and samples end-to-end delay: the HTTP ack of a
// batch -> its marked event visible in ClickHouse. Prints p50/p95/max and the achieved rate.
// --keep leaves the topics and database in place and prints the environment to replay them.
import { parseArgs } from 'node:util'
import { startServices } from '../test/support/harness.js'

const { values } = parseArgs({
  options: { rate: { type: 'string' }, seconds: { type: 'string' }, keep: { type: 'boolean' } },
})
const rate = Number(values.rate ?? 1000)
const seconds = Number(values.seconds ?? 30)
const BATCH = 100

const teardowns: Array<() => unknown> = []
const s = await startServices(
  { teardown: (fn) => teardowns.push(fn) },
  {
    env: { PROJECTOR_MAX_WAIT_MS: process.env.PROJECTOR_MAX_WAIT_MS ?? '300' },
    ...(values.keep ? { suffix: `lag${Date.now().toString(36)}` } : {}),
  },
)
const { key } = await s.createKey({ type: 'live', plan: 'unlimited' })

const acked = new Map<string, number>() // marker message_id -> ack time
const delays: number[] = []
let sent = 0
let failed = 0
const started = Date.now()
const batches = Math.round((rate * seconds) / BATCH)
const interval = (1000 * BATCH) / rate

// Poll ClickHouse for the markers acknowledged but not seen yet.
let polling = true
const poller = (async () => {
  while (polling || acked.size > 0) {
    const ids = [...acked.keys()]
    if (ids.length) {
      const rows = await s.query<{ message_id: string }>(
        `SELECT message_id FROM ${s.database}.events WHERE message_id IN (${ids.map((i) => `'${i}'`).join(',')})`,
      )
      const now = Date.now()
      for (const r of rows) {
        const at = acked.get(r.message_id)
        if (at !== undefined) {
          delays.push(now - at)
          acked.delete(r.message_id)
        }
      }
    }
    if (!polling && Date.now() - started > (seconds + 60) * 1000) break
    await new Promise((r) => setTimeout(r, 25))
  }
})()

const inflight: Promise<void>[] = []
for (let b = 0; b < batches; b++) {
  const due = started + b * interval
  const wait = due - Date.now()
  if (wait > 0) await new Promise((r) => setTimeout(r, wait))
  const marker = `lag-${b}`
  const events = Array.from({ length: BATCH }, (_, i) => ({
    type: 'event',
    event: 'load_test',
    user: { id: `user_${(b * BATCH + i) % 500}` },
    properties: { b, i },
    ...(i === BATCH - 1 ? { message_id: marker } : {}),
  }))
  inflight.push(
    s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key }).then((res) => {
      if (res.status === 200) {
        acked.set(marker, Date.now())
        sent += BATCH
      } else {
        failed += BATCH
        if (failed <= BATCH) console.error('batch failed', res.status, JSON.stringify(res.body).slice(0, 300))
      }
    }),
  )
  if (inflight.length > 50) await inflight.shift()
}
await Promise.all(inflight)
const postSeconds = (Date.now() - started) / 1000
polling = false
await poller

delays.sort((a, b) => a - b)
const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))]
console.log(
  JSON.stringify(
    {
      target_rate: rate,
      achieved_rate: Math.round(sent / postSeconds),
      events_acked: sent,
      events_failed: failed,
      seconds: Number(postSeconds.toFixed(1)),
      samples: delays.length,
      unseen: acked.size,
      ack_to_visible_ms: { p50: pct(50), p95: pct(95), p99: pct(99), max: delays.at(-1) },
      projector: { max_wait_ms: s.env.PROJECTOR_MAX_WAIT_MS, max_rows: s.env.PROJECTOR_MAX_ROWS ?? '10000 (default)' },
    },
    null,
    2,
  ),
)
const metrics = await (await fetch(`${s.projectorUrl}/metrics`)).text()
console.log(
  metrics
    .split('\n')
    .filter((l) => /^projector_(rows_inserted_total|insert_seconds_(sum|count)|consumer_lag)/.test(l))
    .join('\n'),
)

if (values.keep) {
  console.log(
    `\nkept; to replay it:\n  TOPIC_EVENTS=${s.topics.events} TOPIC_IDENTIFIES=${s.topics.identifies} TOPIC_ACCOUNTS=${s.topics.accounts} TOPIC_DLQ=${s.topics.dlq} CLICKHOUSE_DATABASE=${s.database} npm run replay -- ...`,
  )
}
for (const fn of teardowns.reverse()) await fn()
process.exit(0)
