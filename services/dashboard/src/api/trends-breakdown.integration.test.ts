// The breakdown from the hourly property counts (U26) answers as the events do, on a tricky data set: a
// duplicate insert, two values past the length cap sharing their first VALUE_MAX characters, more than 10
// values (so "$other"), events without the key, a nested key, the empty string and numbers, bounds inside
// an hour, and a late event in an hour already counted (marked dirty, not recounted yet). The reference
// is U13's query on main: the events' values by visitParamExtract*, cut at the cap as U26 documents. On the
// current ClickHouse and on one 18.16 server (A10, U22): the migration and the queries use its functions.
import t, { type Test } from 'tap'
import { onBothVersions, type VersionedDatabase } from '../../../../test/support/clickhouse-versions.js'
import { eventRow } from '../../../../test/support/event-rows.js'
import { hourFloor } from '../../../shared/src/rollup/event-counts.js'
import { insertMarks, markRanges } from '../../../shared/src/rollup/dirty-hours.js'
import { VALUE_MAX } from '../../../shared/src/rollup/property-counts.js'
import { recountRanges } from '../../../shared/src/rollup/recount-ranges.js'
import { ident, sql } from '../../../../schemas/clickhouse/sql.js'
import {
  BREAKDOWN_TOP,
  breakdownCountsSql,
  OTHER,
  propertySql,
  TrendQueries,
  type TrendSpec,
} from './trends-queries.js'

const H = 3_600_000
const T0 = Date.UTC(2024, 4, 13, 0)
const LONG = 'x'.repeat(VALUE_MAX)

t.test('the breakdown from the property counts equals the events', (t) =>
  onBothVersions(t, 'trendbreak', breakdownCases),
)

async function breakdownCases(t: Test, db: VersionedDatabase) {
  let n = 0
  const row = (event: string, ms: number, properties: object) =>
    eventRow({
      event_id: `e${++n}`,
      account_id: 'acc_a',
      environment: n % 4 === 0 ? 'test' : 'live',
      event,
      ms,
      properties,
    })
  const rows = []
  // Over 3 days: plans p0..p11, p<k> 13 - k times, spread over hours; the first events of each hour too.
  for (let p = 0; p < 12; p++)
    for (let i = 0; i < 13 - p; i++)
      rows.push(row(i % 2 ? 'signup' : 'page', T0 + ((p * 7 + i * 5) % 72) * H + i * 60_000, { plan: `p${p}` }))
  for (let i = 0; i < 6; i++) rows.push(row('page', T0 + i * 11 * H + 30 * 60_000, { path: '/a' })) // no plan
  for (let i = 0; i < 9; i++) rows.push(row('signup', T0 + i * 7 * H, { plan: `${LONG}${i % 3}` })) // past the cap
  rows.push(row('page', T0 + 5 * H, { cart: { plan: 'nested' }, n: 1 }))
  rows.push(
    row('page', T0 + 6 * H, { plan: '' }),
    row('page', T0 + 6 * H, { plan: 3.5 }),
    row('page', T0 + 7 * H, { plan: true }),
  )
  const insert = (values: object[]) =>
    db.client.insert({ table: `${db.database}.events`, values, format: 'JSONEachRow' })
  await insert(rows)
  await insert(rows.slice(0, 20)) // a retried insert: the same rows again
  // The recount of every hour (U25), which counts both tables.
  const hours = markRanges(rows.map((r) => ({ accountId: r.account_id, hourMs: hourFloor(r.timestamp_ms) })))
  await recountRanges(db.client, db.database, hours)
  // Late: into an hour already counted, marked dirty as the projector's writer marks it, not recounted.
  const late = row('signup', T0 + 7 * H + 10 * 60_000, { plan: 'p11' })
  await insert([late, late])
  await insertMarks(db.client, db.database, [{ accountId: 'acc_a', hourMs: T0 + 7 * H }], {
    markedMs: Date.now(),
    dirty: true,
  })

  const spec = (over: Partial<TrendSpec> = {}): TrendSpec => ({
    from: new Date(T0),
    to: new Date(T0 + 3 * 24 * H),
    interval: 'day',
    filters: [],
    breakdown: 'plan',
    ...over,
  })
  const specs = [
    spec(),
    spec({ interval: 'hour' }),
    spec({ event: 'signup' }),
    spec({ environment: 'test' }),
    spec({ from: new Date(T0 + 5 * H + 20 * 60_000), to: new Date(T0 + 40 * H + 3 * 60_000), interval: 'hour' }),
    spec({ breakdown: 'path' }),
    spec({ breakdown: 'n' }),
  ]
  const q = new TrendQueries(db.client, db.database, true)
  const events = new TrendQueries(db.client, db.database, false)
  for (const s of specs) {
    const fast = await q.trend('acc_a', s)
    t.same(fast, await events.trend('acc_a', s), `counts equal events: ${JSON.stringify(s)}`)
    t.same(totals(fast), await referenceTotals(s), `the values and totals of U13's query: ${JSON.stringify(s)}`)
  }
  const all = await q.trend('acc_a', spec())
  t.same(
    all.series.map((x) => x.value),
    ['p0', 'p1', 'p2', 'p3', 'p4', `${LONG}…`, 'p5', 'p6', '', 'p7', OTHER],
    'the long values count together as their first VALUE_MAX characters and …',
  )
  t.equal(total(all.series[0]!.counts), 13, 'a duplicate counts once')
  t.match(
    breakdownCountsSql(db.database, 'acc_a', spec(), 'plan', [T0 + 7 * H]),
    /property_counts_hourly FINAL/,
    'the fast path reads the property counts',
  )

  /** U13's answer on main: values by visitParamExtract*, the top 10 by count then value, the rest other. */
  async function referenceTotals(s: TrendSpec): Promise<Array<[string, number]>> {
    const r = await db.client.query({
      query: sql`SELECT ${propertySql(s.breakdown!)} AS value, count() AS n FROM ${ident(db.database, 'events')} FINAL
WHERE account_id = 'acc_a' AND timestamp_ms >= ${s.from.getTime()} AND timestamp_ms < ${s.to.getTime()}
  AND event LIKE ${s.event ?? '%'} AND toString(environment) LIKE ${s.environment ?? '%'}
GROUP BY value`,
      format: 'JSONEachRow',
    })
    const byValue = new Map<string, number>()
    for (const { value, n } of await r.json<{ value: string; n: string }>()) {
      const cut = [...value].length > VALUE_MAX ? `${[...value].slice(0, VALUE_MAX).join('')}…` : value
      byValue.set(cut, (byValue.get(cut) ?? 0) + Number(n))
    }
    const sorted = [...byValue].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    const rest = sorted.slice(BREAKDOWN_TOP).reduce((a, [, k]) => a + k, 0)
    return [...sorted.slice(0, BREAKDOWN_TOP), ...(rest > 0 ? [[OTHER, rest] as [string, number]] : [])]
  }
}

t.test('the breakdown reads whole counted days from the daily counts, exact as the events', (t) =>
  onBothVersions(t, 'trendday', dayCases),
)

/**
 * U29: a period over 4 days with bounds inside a day and an hour, so days come from property_counts_daily
 * and the edges from the hours and the events; 15 paths (so "$other"), a duplicate insert; then a late
 * event into a counted day (its hour marked dirty: the day is read from the hours until the recount) and
 * the recount of that hour, which must sum its day again.
 */
async function dayCases(t: Test, db: VersionedDatabase) {
  let n = 0
  const row = (ms: number, path: string, event = 'page', environment?: 'live' | 'test') =>
    eventRow({
      event_id: `d${++n}`,
      account_id: 'acc_a',
      environment: environment ?? (n % 5 === 0 ? 'test' : 'live'),
      event,
      ms,
      properties: { path },
    })
  const rows: Array<ReturnType<typeof row>> = []
  for (let h = 0; h < 4 * 24; h += 1)
    for (let k = 0; k <= h % 15; k++) rows.push(row(T0 + h * H + k * 60_000, `/p${k}`, k % 3 ? 'page' : 'signup'))
  const insert = (values: object[]) =>
    db.client.insert({ table: `${db.database}.events`, values, format: 'JSONEachRow' })
  await insert(rows)
  await insert(rows.slice(0, 40)) // a retried insert: the same rows again
  const hourMarks = (rs: typeof rows) => rs.map((r) => ({ accountId: r.account_id, hourMs: hourFloor(r.timestamp_ms) }))
  const recount = async (rs: typeof rows) => {
    const markedMs = Date.now()
    await recountRanges(db.client, db.database, markRanges(hourMarks(rs)))
    await insertMarks(db.client, db.database, hourMarks(rs), { markedMs, dirty: false })
  }
  await recount(rows)
  const period = { from: new Date(T0 + 5 * H + 20 * 60_000), to: new Date(T0 + 3 * 24 * H + 7 * H + 30 * 60_000) }
  const spec = (over: Partial<TrendSpec> = {}): TrendSpec => ({
    ...period,
    interval: 'day',
    filters: [],
    breakdown: 'path',
    ...over,
  })
  const specs = [
    spec(),
    spec({ interval: 'week' }),
    spec({ event: 'signup' }),
    spec({ environment: 'test' }),
    spec({ interval: 'hour' }),
  ]
  const q = new TrendQueries(db.client, db.database, true)
  const events = new TrendQueries(db.client, db.database, false)
  const same = async (when: string) => {
    for (const s of specs)
      t.same(await q.trend('acc_a', s), await events.trend('acc_a', s), `${when}: ${JSON.stringify(s)}`)
  }
  const [days] = await queryDays()
  t.ok(Number(days!.n) > 0, 'the recount summed the days')
  t.match(breakdownCountsSql(db.database, 'acc_a', spec(), 'path', []), /property_counts_daily FINAL/, 'reads the days')
  await same('counted')

  // Late: '/late' and a '/p0' signup (rows of the day hold '/p0' signups) into 10:00 of the second day
  // (counted), each twice, marked dirty as the writer does.
  const p0 = async () => (await q.trend('acc_a', spec())).series.find((x) => x.value === '/p0')!.counts
  const before = await p0()
  const late = [row(T0 + 34 * H + 5 * 60_000, '/late'), row(T0 + 34 * H + 6 * 60_000, '/p0', 'signup', 'live')]
  await insert([...late, ...late])
  await insertMarks(db.client, db.database, hourMarks(late), { markedMs: Date.now(), dirty: true })
  await same('a late event, its hour dirty')
  await recount(late)
  await same('the late hour recounted')
  t.same(await p0(), [before[0], before[1]! + 1, ...before.slice(2)], 'the late event counts once, in its day')

  async function queryDays() {
    const r = await db.client.query({
      query: `SELECT count() AS n FROM ${db.database}.property_counts_daily WHERE account_id = 'acc_a'`,
      format: 'JSONEachRow',
    })
    return r.json<{ n: string }>()
  }
}

const total = (c: number[]) => c.reduce((a, b) => a + b, 0)
const totals = (trend: { series: Array<{ value: string; counts: number[] }> }): Array<[string, number]> =>
  trend.series.map((s) => [s.value, total(s.counts)])

t.test("a breakdown by a trait counts each event under its person's latest value", (t) =>
  onBothVersions(t, 'trendtrait', traitCases),
)

async function traitCases(t: Test, db: VersionedDatabase) {
  let n = 0
  const event = (user_id: string, hour: number, environment: 'live' | 'test' = 'live') =>
    eventRow({ event_id: `e${n++}`, account_id: 'acc_a', environment, event: 'page', user_id, ms: T0 + hour * H })
  const trait = (user_id: string, value: string, setAt: number, environment = 'live', account_id = 'acc_a') => ({
    account_id,
    environment,
    user_id,
    trait_key: 'plan',
    value,
    set_at: Math.floor(setAt / 1000),
    set_at_ms: setAt,
    source_event_id: '',
  })
  const events = [
    ...[1, 2, 25].map((h) => event('u1', h)), // u1: team (changed from free), 3 events
    ...[3, 26].map((h) => event('u2', h)), // u2: 42 (a number), 2 events
    event('u3', 4), // u3: no plan
    event('', 5), // no user id
    event('u1', 6, 'test'), // the test environment's u1: pro
  ]
  const insert = (table: string, values: object[]) =>
    db.client.insert({ table: `${db.database}.${table}`, values, format: 'JSONEachRow' })
  await insert('events', events)
  await insert('events', events.slice(0, 1)) // a duplicate
  // As the projector writes (U25): the hours dirty until counted, so read from the events.
  const hours = events.map((e) => ({ accountId: 'acc_a', hourMs: hourFloor(e.timestamp_ms) }))
  await insertMarks(db.client, db.database, hours, { markedMs: Date.now(), dirty: true })
  await insert('user_traits', [
    trait('u1', '"free"', T0),
    trait('u1', '"team"', T0 + H),
    trait('u2', '42', T0),
    trait('u1', '"pro"', T0, 'test'),
    trait('u3', '"other-account"', T0, 'live', 'acc_b'),
  ])
  const q = new TrendQueries(db.client, db.database, true)
  const s: TrendSpec = { from: new Date(T0), to: new Date(T0 + 2 * 24 * H), interval: 'day', filters: [] }
  const trend = await q.trend('acc_a', { ...s, breakdownTrait: 'plan' })
  t.same(trend.series, [
    { value: 'team', counts: [2, 1] },
    { value: '', counts: [2, 0] },
    { value: '42', counts: [1, 1] },
    { value: 'pro', counts: [1, 0] },
  ])
  const live = await q.trend('acc_a', { ...s, environment: 'live', breakdownTrait: 'plan' })
  t.same(
    live.series.map((x) => x.value),
    ['team', '', '42'],
    'one environment',
  )
  // Counted (the recount, then the marks): the whole days from person_counts_daily (U33), the same answer.
  const markedMs = Date.now()
  await recountRanges(db.client, db.database, markRanges(hours))
  await insertMarks(db.client, db.database, hours, { markedMs, dirty: false })
  t.same((await q.trend('acc_a', { ...s, breakdownTrait: 'plan' })).series, trend.series, 'from the daily counts')
  t.same((await q.trend('acc_a', { ...s, environment: 'live', breakdownTrait: 'plan' })).series, live.series)
}
