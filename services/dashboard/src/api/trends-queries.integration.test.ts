// The Trends query on a small known data set in a fresh ClickHouse database: counts per day, the
// breakdown's top 10 values and "$other", a property filter, and another account's rows left out.
import t from 'tap'
import { createTestDatabase } from '../../../../test/support/clickhouse-helpers.js'
import { markRanges } from '../../../shared/src/rollup/dirty-hours.js'
import { hourFloor } from '../../../shared/src/rollup/event-counts.js'
import { recountRanges } from '../../../shared/src/rollup/recount-ranges.js'
import { OTHER, TrendQueries, type TrendSpec } from './trends-queries.js'

const day = (d: number, h = 12) => new Date(Date.UTC(2024, 4, d, h))

t.test('trends count what was stored', async (t) => {
  const db = await createTestDatabase({ prefix: 'trends', t })
  let n = 0
  const row = (account_id: string, event: string, at: Date, properties: object) => {
    const ms = at.getTime()
    return {
      event_id: `e${n++}`,
      account_id,
      environment: 'live',
      event,
      timestamp: Math.floor(ms / 1000),
      timestamp_ms: ms,
      received_at: Math.floor(ms / 1000),
      received_at_ms: ms,
      properties: JSON.stringify(properties),
    }
  }
  const rows = []
  // Plans p0..p11 on 13 May: p0 has 12 events, p1 11, ... p11 1; the top 10 are p0..p9.
  for (let p = 0; p < 12; p++)
    for (let i = 0; i < 12 - p; i++) rows.push(row('acc_a', 'signup', day(13), { plan: `p${p}` }))
  rows.push(row('acc_a', 'signup', day(15), { plan: 'p0', n: 5 }))
  rows.push(row('acc_a', 'page', day(15), { plan: 'p0' }))
  rows.push(row('acc_b', 'signup', day(14), { plan: 'p0' }))
  await db.client.insert({ table: `${db.database}.events`, values: rows, format: 'JSONEachRow' })
  await db.client.insert({ table: `${db.database}.events`, values: [rows[0]], format: 'JSONEachRow' })
  // The hourly counts (U19) and property counts (U26), as the projector's recount counts them.
  const hours = markRanges(rows.map((r) => ({ accountId: r.account_id, hourMs: hourFloor(r.timestamp_ms) })))
  await recountRanges(db.client, db.database, hours)

  const q = new TrendQueries(db.client, db.database, true)
  const spec = (over: Partial<TrendSpec> = {}): TrendSpec => ({
    from: day(13, 0),
    to: day(16, 0),
    interval: 'day',
    filters: [],
    event: 'signup',
    ...over,
  })
  t.same((await q.trend('acc_a', spec())).series, [{ value: '', counts: [78, 0, 1] }], 'a duplicate counts once')
  t.same((await q.trend('acc_a', spec({ event: undefined }))).series, [{ value: '', counts: [78, 0, 2] }], 'all')

  const broken = await q.trend('acc_a', spec({ breakdown: 'plan' }))
  t.same(
    broken.series.map((s) => s.value),
    ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', OTHER],
  )
  t.same(broken.series[0]!.counts, [12, 0, 1])
  t.same(broken.series.at(-1)!.counts, [3, 0, 0], 'p10 and p11 are other')

  t.same(
    (await q.trend('acc_a', spec({ filters: [{ key: 'n', value: '5' }] }))).series,
    [{ value: '', counts: [0, 0, 1] }],
    'a numeric property filters as its text',
  )
  t.same((await q.trend('acc_c', spec())).series, [], 'nothing of another account')
  const weekly = await q.trend('acc_a', spec({ interval: 'week', from: day(6, 0), to: day(20, 0) }))
  t.same(weekly.buckets, ['2024-05-06T00:00:00.000Z', '2024-05-13T00:00:00.000Z'])
  t.same(weekly.series, [{ value: '', counts: [0, 79] }])
})
