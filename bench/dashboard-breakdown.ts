// The Trends breakdowns at ten million events (BENCHMARKS.md "Trends breakdown", docs/design.md U26):
// one account filled once by dashboard-fill.ts into a named database of the running ClickHouse, kept
// between runs (the fill is not what is measured), then each case's query timed through TrendQueries
// (the dashboard's own code), with the server's own figures polled from system.processes (chdb-core has
// no system.query_log): CPU time, rows and bytes read, peak memory, which a loaded machine changes less
// than the wall time.
//
//   npx tsx bench/dashboard-breakdown.ts --database trends_bench [--fill] [--events 10000000] [--runs 5] [--case trait]
//   npx tsx bench/dashboard-breakdown.ts --database trends_bench --drop
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { createClient } from '@clickhouse/client'
import { migrate } from '../schemas/clickhouse/migrate.js'
import { sql } from '../schemas/clickhouse/sql.js'
import { TrendQueries, type TrendSpec } from '../services/dashboard/src/api/trends-queries.js'
import { trendSpecOf } from '../services/dashboard/src/api/trend-params.js'
import { fillAccount } from './dashboard-fill.js'

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'trends_bench' },
    fill: { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
    events: { type: 'string', default: '10000000' },
    persons: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '5' },
    /** Only the cases whose name holds this text. */
    case: { type: 'string', default: '' },
  },
})
const ACCOUNT = 'bench-trends'
const RUNS = Number(values.runs)
const url = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123'
const client = () => createClient({ url, username: 'default', password: '', request_timeout: 1_800_000 })

/** The bench's cases: the dashboard bench's breakdown (dashboard-pages.ts) and its neighbours. */
const CASES: Array<{ name: string; query: Record<string, string> }> = [
  { name: 'all events, 30 days by day (no breakdown)', query: { period: '30d', interval: 'day' } },
  { name: 'breakdown by plan, 30 days by day', query: { period: '30d', interval: 'day', breakdown: 'plan' } },
  { name: 'breakdown by path (200 values), 30 days', query: { period: '30d', interval: 'day', breakdown: 'path' } },
  { name: 'breakdown by plan, 7 days by day', query: { period: '7d', interval: 'day', breakdown: 'plan' } },
  { name: 'breakdown by path (200 values), 7 days', query: { period: '7d', interval: 'day', breakdown: 'path' } },
  {
    name: 'one event by plan, 7 days by hour',
    query: { period: '7d', interval: 'hour', event: 'page_viewed', breakdown: 'plan' },
  },
  {
    name: 'breakdown by trait plan, 30 days by day',
    query: { period: '30d', interval: 'day', breakdownTrait: 'plan' },
  },
  {
    name: 'breakdown by trait plan, 7 days by hour',
    query: { period: '7d', interval: 'hour', breakdownTrait: 'plan' },
  },
]

const specOf = (q: Record<string, string>): TrendSpec =>
  trendSpecOf({ ...q, filters: [], custom: () => ({ from: new Date(0), to: new Date(0) }) }, Date.now()).current

/** A statement's figures as system.processes last showed them (chdb-core has no system.query_log). */
interface Seen {
  cpu_us: number
  read_rows: number
  read_bytes: number
  memory: number
}

/**
 * Polls system.processes every 50 ms for the bench account's statements on `database` (another bench may
 * run on the same server with the same account in its own database) and keeps each one's largest figures
 * (so a little under the whole: the last 50 ms of a statement are not seen), until stop().
 */
function watchServer(database: string): { stop: () => Promise<Map<string, Seen>> } {
  const ch = client()
  const seen = new Map<string, Seen>()
  let running = true
  const loop = (async () => {
    while (running) {
      const r = await ch.query({
        query: sql`SELECT query_id, ProfileEvents['UserTimeMicroseconds'] + ProfileEvents['SystemTimeMicroseconds'] AS cpu_us,
  read_rows, read_bytes, peak_memory_usage AS memory
FROM system.processes WHERE position(query, ${ACCOUNT}) > 0 AND position(query, ${`${database}.`}) > 0
  AND position(query, 'system.processes') = 0`,
        format: 'JSONEachRow',
      })
      for (const x of await r.json<Record<string, string>>()) {
        const was = seen.get(x.query_id!) ?? { cpu_us: 0, read_rows: 0, read_bytes: 0, memory: 0 }
        for (const k of ['cpu_us', 'read_rows', 'read_bytes', 'memory'] as const)
          was[k] = Math.max(was[k], Number(x[k]))
        seen.set(x.query_id!, was)
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      await ch.close()
      return seen
    },
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function timeCase(c: (typeof CASES)[number], database: string): Promise<void> {
  const ch = client()
  const trends = new TrendQueries(ch, database, true)
  const wall: number[] = []
  const runs: Seen[] = []
  for (let i = 0; i < RUNS; i++) {
    const watch = watchServer(database)
    const t0 = performance.now()
    await trends.trend(ACCOUNT, specOf(c.query))
    wall.push(performance.now() - t0)
    const seen = [...(await watch.stop()).values()]
    const sum = (k: keyof Seen) => seen.reduce((a, x) => a + x[k], 0)
    runs.push({
      cpu_us: sum('cpu_us'),
      read_rows: sum('read_rows'),
      read_bytes: sum('read_bytes'),
      memory: sum('memory'),
    })
  }
  await ch.close()
  const m = (k: keyof Seen) => median(runs.map((r) => r[k]))
  console.log(
    `${c.name.padEnd(44)} wall median ${median(wall).toFixed(0).padStart(6)} ms | server CPU ${(m('cpu_us') / 1000).toFixed(0)} ms, ` +
      `${m('read_rows').toLocaleString('en')} rows, ${(m('read_bytes') / 1e6).toFixed(1)} MB, ${(m('memory') / 1e6).toFixed(1)} MB memory (medians of ${RUNS})`,
  )
}

async function main() {
  const database = values.database!
  const ch = client()
  if (values.drop) {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` })
    return ch.close()
  }
  const t0 = performance.now()
  await migrate(ch, database, { log: (s) => console.log(s) })
  console.log(`migrations: ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  if (values.fill) {
    const t1 = performance.now()
    const sizes = { events: Number(values.events), persons: Number(values.persons) }
    await fillAccount(ch, database, ACCOUNT, Math.floor(Date.now() / 1000), sizes)
    console.log(
      `filled ${sizes.events.toLocaleString('en')} events in ${((performance.now() - t1) / 1000).toFixed(1)} s`,
    )
  }
  await ch.close()
  console.log(`load average ${loadavg().map((x) => x.toFixed(1))}`)
  for (const c of CASES.filter((x) => x.name.includes(values.case!))) await timeCase(c, database)
  console.log(`load average ${loadavg().map((x) => x.toFixed(1))}`)
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
