// The hourly counts (U19) answer Trends exactly as the events do: on hand-counted rows with a duplicate
// insert, a late event in an hour already counted, the current incomplete hour and periods whose bounds
// fall inside an hour. The counts are rebuilt by the statement the projector's writer runs after each batch.
import t from 'tap'
import { createTestDatabase } from '../../../../test/support/clickhouse-helpers.js'
import { markRanges } from '../../../shared/src/rollup/dirty-hours.js'
import { hourFloor, rebuildCounts } from '../../../shared/src/rollup/event-counts.js'
import { countsTrendSql, rawTrendSql, TrendQueries, type TrendSpec } from './trends-queries.js'

const H = 3_600_000
const NOW = Date.UTC(2024, 4, 20, 10, 25) // 10:25, inside the "current" hour
const at = (hoursAgo: number, minute = 0) => NOW - 25 * 60_000 - hoursAgo * H + minute * 60_000

t.test('hourly counts equal the events, exactly', async (t) => {
  const db = await createTestDatabase({ prefix: 'trendcounts', t })
  let n = 0
  const row = (event: string, ms: number, environment = 'live', account_id = 'acc_a') => ({
    event_id: `e${n++}`,
    account_id,
    environment,
    event,
    timestamp: Math.floor(ms / 1000),
    timestamp_ms: ms,
    received_at: Math.floor(ms / 1000),
    received_at_ms: ms,
    properties: '{}',
  })
  const write = async (rows: ReturnType<typeof row>[]) => {
    await db.client.insert({ table: `${db.database}.events`, values: rows, format: 'JSONEachRow' })
    const hours = markRanges(rows.map((r) => ({ accountId: r.account_id, hourMs: hourFloor(r.timestamp_ms) })))
    await rebuildCounts(db.client, db.database, hours)
  }
  // 3 signups 49 h ago (at :00, :10, :59), 2 pages 30 h ago, 1 test-key page 30 h ago, 2 signups in the
  // current hour (10:05 and 10:20), one of acc_b; hand-counted below.
  const first = [
    row('signup', at(49, 0)),
    row('signup', at(49, 10)),
    row('signup', at(49, 59)),
    row('page', at(30, 30)),
    row('page', at(30, 31)),
    row('page', at(30, 32), 'test'),
    row('signup', at(0, 5)),
    row('signup', at(0, 20)),
    row('signup', at(0, 20), 'live', 'acc_b'),
  ]
  await write(first)
  await write([first[0]!, first[6]!]) // a retried insert: the same rows again, their hours rebuilt
  await write([row('page', at(30, 40))]) // late: an hour counted already gets one more
  const rollup = await db.client.query({
    query: `SELECT sum(events) AS n FROM ${db.database}.event_counts_hourly FINAL WHERE account_id = 'acc_a'`,
    format: 'JSONEachRow',
  })
  t.same(await rollup.json(), [{ n: '9' }], 'the hourly rows hold each event once')

  const q = new TrendQueries(db.client, db.database, true)
  const spec = (over: Partial<TrendSpec>): TrendSpec => ({
    from: new Date(NOW - 3 * 24 * H),
    to: new Date(NOW),
    interval: 'day',
    filters: [],
    ...over,
  })
  const all = await q.trend('acc_a', spec({}))
  t.same(all.series, [{ value: '', counts: [0, 3, 4, 2] }], 'by day: 49 h ago, 30 h ago, the current hour')
  t.same((await q.trend('acc_a', spec({ environment: 'live' }))).series[0]!.counts, [0, 3, 3, 2])
  t.same((await q.trend('acc_a', spec({ event: 'signup', interval: 'hour' }))).series[0]!.counts.at(-1), 2)
  // The period starts at 49 h ago + 5 min: the partial first hour's :10 and :59 count, :00 does not.
  const partial = spec({ from: new Date(at(49, 5)), to: new Date(at(0, 20)), interval: 'hour', event: 'signup' })
  const counts = (await q.trend('acc_a', partial)).series[0]!.counts
  t.same([counts[0], counts.at(-1)], [2, 1], 'partial hours at both ends, bounded to the millisecond')

  const specs: TrendSpec[] = [
    spec({}),
    spec({ interval: 'hour' }),
    spec({ interval: 'week', from: new Date(NOW - 30 * 24 * H) }),
    spec({ event: 'page' }),
    spec({ environment: 'test' }),
    partial,
    spec({ from: new Date(at(30, 31)), to: new Date(at(30, 35)), interval: 'hour' }),
  ]
  for (const s of specs) {
    const rows = async (query: string) => (await db.client.query({ query, format: 'JSONEachRow' })).json()
    t.same(
      await rows(countsTrendSql(db.database, 'acc_a', s)),
      await rows(rawTrendSql(db.database, 'acc_a', s)),
      `counts equal events: ${JSON.stringify(s)}`,
    )
  }
})
