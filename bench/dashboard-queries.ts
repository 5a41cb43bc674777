// The dashboard's page queries on one account with many events (default 10 million), on a fresh
// database of the running stack's ClickHouse (CLICKHOUSE_URL; 18.16 by default, the 26.9 server
// with CLICKHOUSE_URL=http://127.0.0.1:18223 CLICKHOUSE_USER=default CLICKHOUSE_PASSWORD=). Rows are
// generated inside ClickHouse (INSERT ... SELECT FROM numbers), spread over 30 days, 40 event names,
// 100,000 users with three traits each. Prints each query's median of 5 runs; drops the database
// (unless BENCH_KEEP_DATABASE is set, to try queries by hand).
//
//   npx tsx bench/dashboard-queries.ts [--events 10000000]
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { createClient } from '@clickhouse/client'
import { migrate } from '../schemas/clickhouse/migrate.js'
import { DashboardQueries } from '../services/dashboard/src/api/queries.js'
import { DefinitionQueries } from '../services/dashboard/src/api/definitions-queries.js'
import { LiveHistory } from '../services/dashboard/src/api/live-history.js'
import { personQueries } from '../services/dashboard/src/api/persons-queries.js'

const { values } = parseArgs({
  options: { events: { type: 'string', default: '10000000' }, runs: { type: 'string', default: '5' } },
})
const N = Number(values.events)
const RUNS = Number(values.runs)
const ACCOUNT = 'bench-account'
const USERS = 100_000
const DAY = 86_400_000

const ch = createClient({
  url: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123',
  username: process.env.CLICKHOUSE_USER ?? 'default',
  password: process.env.CLICKHOUSE_PASSWORD ?? '',
  request_timeout: 600_000,
})
const db = `bench_dash_${randomBytes(4).toString('hex')}`

async function fill(nowS: number) {
  const span = 30 * 86_400
  const started = Date.now()
  await ch.command({
    query: `INSERT INTO ${db}.events
SELECT concat('e', toString(number)) AS event_id, '${ACCOUNT}' AS account_id,
  CAST(if(number % 10 = 0, 'test', 'live') AS Enum8('live' = 1, 'test' = 2)) AS environment, 'k1' AS key_id,
  concat('event_', toString(number % 40)) AS event, concat('user_', toString(number % ${USERS})) AS user_id,
  toDateTime(${nowS} - intDiv(number * ${span}, ${N}), 'UTC') AS timestamp, toInt64(${nowS} - intDiv(number * ${span}, ${N})) * 1000 AS timestamp_ms,
  timestamp_ms AS original_timestamp_ms, timestamp AS received_at, timestamp_ms AS received_at_ms, timestamp_ms AS sent_at_ms, 0 AS timestamp_flagged,
  concat('{"n":', toString(number % 1000), ',"plan":"', if(number % 3 = 0, 'pro', 'free'), '","path":"/p/', toString(number % 50), '"}') AS properties,
  '{}' AS context, '' AS ip, '' AS user_agent, '' AS message_id, '' AS user_email, '' AS user_traits,
  '' AS anonymous_id
FROM numbers(${N})`,
  })
  await ch.command({
    query: `INSERT INTO ${db}.user_traits
SELECT '${ACCOUNT}', CAST('live' AS Enum8('live' = 1, 'test' = 2)), concat('user_', toString(intDiv(number, 3))),
  arrayElement(['email', 'plan', 'seats'], 1 + number % 3),
  multiIf(number % 3 = 0, concat('"u', toString(number), '@example.com"'), number % 3 = 1, '"pro"', toString(number % 20)),
  toDateTime(${nowS} - number % ${span}, 'UTC'), toInt64(${nowS} - number % ${span}) * 1000, ''
FROM numbers(${USERS * 3})`,
  })
  return Date.now() - started
}

async function time(name: string, fn: () => Promise<unknown>) {
  const ms: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    await fn()
    ms.push(performance.now() - t0)
  }
  ms.sort((a, b) => a - b)
  console.log(
    `${name.padEnd(44)} median ${ms[Math.floor(RUNS / 2)]!.toFixed(0).padStart(5)} ms  (min ${ms[0]!.toFixed(0)}, max ${ms[RUNS - 1]!.toFixed(0)})`,
  )
}

async function main() {
  const version = (
    await (await ch.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>()
  )[0]!.v
  await migrate(ch, db)
  const now = Date.now()
  const filled = await fill(Math.floor(now / 1000))
  console.log(
    `ClickHouse ${version}: ${N.toLocaleString('en')} events and ${(USERS * 3).toLocaleString('en')} trait rows of one account filled in ${(filled / 1000).toFixed(1)} s`,
  )
  const q = new DashboardQueries(ch, db)
  const defs = new DefinitionQueries(ch, db)
  const week = { from: new Date(now - 7 * DAY), to: new Date(now + 60_000) }
  await time('Definitions: events (counts, samples)', () => defs.events(ACCOUNT, undefined, now))
  await time('Definitions: traits', () => defs.traits(ACCOUNT, undefined))
  await time('Explorer: recent events, 7 days', () => q.recentEvents(ACCOUNT, { ...week, limit: 100 }))
  await time('Explorer: recent events, event contains', () =>
    q.recentEvents(ACCOUNT, { ...week, eventContains: 'event_1', limit: 100 }),
  )
  await time('Explorer: top events, 7 days', () => q.topEvents(ACCOUNT, { ...week, limit: 10 }))
  await time('Usage: events per hour, 3 days', () =>
    q.eventsPerHour(ACCOUNT, new Date(now - 3 * DAY), new Date(now + 3_600_000)),
  )
  await time('Live history: last 50 events', () => new LiveHistory(ch, db).recent(ACCOUNT, 50, now))
  await time('User page: profile', () => q.userProfiles(ACCOUNT, 'user_7'))
  const persons = personQueries(ch, db)
  await time('Persons: first page', () => persons.list(ACCOUNT, { limit: 50 }))
  await time('Persons: a later page', () => persons.list(ACCOUNT, { limit: 50, after: 'user_5' }))
  await time('Persons: search by email', () => persons.list(ACCOUNT, { limit: 50, search: 'u29997@' }))
  await time('Persons: search by trait value (all match)', () => persons.list(ACCOUNT, { limit: 50, search: 'pro' }))
}

main()
  .catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
  // biome-ignore lint/nursery/noMisusedPromises: finally() waits for the promise its callback returns
  .finally(async () => {
    if (process.env.BENCH_KEEP_DATABASE) console.log(`kept ${db}`)
    else await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` }).catch(() => undefined)
    await ch.close()
  })
