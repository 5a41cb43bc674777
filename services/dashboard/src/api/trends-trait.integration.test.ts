// The breakdown by a user trait (U27, U30, U32 of docs/design.md) answers as U27's query did, on a tricky data set:
// a duplicate insert, a person whose trait changed (the later value written first), a number, a person
// without the trait, events without a user id, more than 10 values (so "$other"), both environments (one
// person with another value in each, one with the trait in one only), a filter, one event, bounds inside an
// hour and the three intervals, and ids sharing a hash. The reference is U27's query as it was: each event of `events FINAL` joined
// to the trait's latest value, counted per value. Then U32's read as stored: taken only when no duplicate is
// stored (before and during the read), FINAL otherwise; and U33's read of the counted days from
// person_counts_daily, the days with a dirty hour from the events. On the current ClickHouse and on one 18.16
// server (A10).
import t, { type Test } from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import { onBothVersions, type VersionedDatabase } from '../../../../test/support/clickhouse-versions.js'
import { eventRow } from '../../../../test/support/event-rows.js'
import { ident, raw, sql } from '../../../../schemas/clickhouse/sql.js'
import { valueTextSql } from '../../../shared/src/rollup/property-counts.js'
import { hourFloor } from '../../../shared/src/rollup/event-counts.js'
import { insertMarks, markRanges } from '../../../shared/src/rollup/dirty-hours.js'
import { recountRanges } from '../../../shared/src/rollup/recount-ranges.js'
import {
  BREAKDOWN_TOP,
  type BreakdownRow,
  breakdownRows,
  bucketSql,
  OTHER,
  propertySql,
  TrendQueries,
  type TrendSpec,
  toTrend,
  traitBreakdownSql,
  traitCountsSql,
} from './trends-queries.js'

const H = 3_600_000
const T0 = Date.UTC(2024, 4, 13, 0)

t.test("the trait breakdown equals U27's query", (t) => onBothVersions(t, 'trendtrait30', traitCases))

t.test("the join is keyed by the user id's hash, then counted per value and bucket (U30)", async (t) => {
  const s: TrendSpec = { from: new Date(T0), to: new Date(T0 + H), interval: 'hour', filters: [] }
  t.match(
    traitBreakdownSql('db', 'acc_a', s, 'plan'),
    /cityHash64\(user_id\) AS person[\s\S]*USING \(environment, person\)\s+GROUP BY value, t/,
  )
})

async function traitCases(t: Test, db: VersionedDatabase) {
  let n = 0
  const event = (user_id: string, ms: number, environment: 'live' | 'test' = 'live', name = 'page') =>
    eventRow({
      event_id: `e${n++}`,
      account_id: 'acc_a',
      environment,
      event: name,
      user_id,
      ms,
      properties: { source: n % 3 ? 'ad' : 'mail' },
    })
  const trait = (user_id: string, value: string, setAt: number, environment = 'live', trait_key = 'plan') => ({
    account_id: 'acc_a',
    environment,
    user_id,
    trait_key,
    value,
    set_at: Math.floor(setAt / 1000),
    set_at_ms: setAt,
    source_event_id: '',
  })
  const events: Array<ReturnType<typeof event>> = []
  // u0..u12, each its own value p<k>, 14 - k events over 3 days (13 values: "$other" holds the last).
  for (let k = 0; k < 13; k++)
    for (let i = 0; i < 14 - k; i++)
      events.push(event(`u${k}`, T0 + ((k * 7 + i * 5) % 72) * H + i * 60_000, 'live', i % 2 ? 'signup' : 'page'))
  events.push(
    ...[1, 30, 50].map((h) => event('changed', T0 + h * H + 20 * 60_000)), // its plan changed: counted under 'team'
    ...[2, 3].map((h) => event('numeric', T0 + h * H)),
    ...[4, 40].map((h) => event('untraited', T0 + h * H)), // has another trait, not plan
    ...[5, 6, 60].map((h) => event('', T0 + h * H + 10 * 60_000)), // no user id
    ...[7, 8].map((h) => event('changed', T0 + h * H, 'test')), // test's 'changed' is on 'pro'
    event('u0', T0 + 9 * H, 'test'), // test's u0 has no plan
  )
  const insert = (table: string, values: object[]) =>
    db.client.insert({ table: `${db.database}.${table}`, values, format: 'JSONEachRow' })
  // As the projector writes: the events, then their hours marked dirty (U25), so no day is read from the
  // daily counts (U33) before the recount has counted it.
  const hoursOf = (rows: Array<{ timestamp_ms: number }>) =>
    rows.map((e) => ({ accountId: 'acc_a', hourMs: hourFloor(e.timestamp_ms) }))
  const markDirty = (rows: Array<{ timestamp_ms: number }>) =>
    insertMarks(db.client, db.database, hoursOf(rows), { markedMs: Date.now(), dirty: true })
  await insert('events', events)
  await insert('events', events.slice(0, 25)) // a retried insert: the same rows again
  await markDirty(events)
  const traits = [...Array(13).keys()].map((k) => trait(`u${k}`, `"p${k}"`, T0))
  await insert('user_traits', [trait('changed', '"team"', T0 + 2 * H), trait('numeric', '42', T0)])
  await insert('user_traits', [
    ...traits,
    trait('changed', '"free"', T0), // older, written later
    trait('untraited', '12', T0, 'live', 'seats'),
    trait('changed', '"pro"', T0, 'test'),
  ])
  await insert('user_traits', traits.slice(0, 3)) // the same values again

  const spec = (over: Partial<TrendSpec> = {}): TrendSpec => ({
    from: new Date(T0),
    to: new Date(T0 + 3 * 24 * H),
    interval: 'day',
    filters: [],
    breakdownTrait: 'plan',
    ...over,
  })
  const specs = [
    spec(),
    spec({ interval: 'hour' }),
    spec({ interval: 'week' }),
    spec({ environment: 'live' }),
    spec({ environment: 'test' }),
    spec({ event: 'signup' }),
    spec({ filters: [{ key: 'source', value: 'ad' }] }),
    spec({ from: new Date(T0 + 5 * H + 20 * 60_000), to: new Date(T0 + 40 * H + 3 * 60_000), interval: 'hour' }),
  ]
  const q = new TrendQueries(db.client, db.database, true)
  for (const s of specs) t.same(await q.trend('acc_a', s), await u27Trend(s), `U27's answer: ${JSON.stringify(s)}`)

  // Ids sharing a hash (a hash of their length: u0..u9 share one) still count under their own values.
  for (const s of specs.slice(0, 3)) {
    const r = await db.client.query({
      query: traitBreakdownSql(db.database, 'acc_a', s, 'plan', 'length'),
      format: 'JSON',
    })
    const { data, totals } = await r.json<BreakdownRow>()
    const shared = toTrend(breakdownRows(data, totals as BreakdownRow | undefined), s)
    t.same(shared, await u27Trend(s), `ids of one hash: ${JSON.stringify(s)}`)
    // U33's read by hashes: the second hash tells them apart; with both hashes shared it cannot, and says so
    // (TrendQueries then reads as above).
    // The first hash of the environment and the id's length: u0..u9 of one environment share it.
    const LENGTH_HASH = 'cityHash64(toString(environment), length(user_id))'
    const byHashes = async (person: string, check?: string) => {
      const r = await db.client.query({
        query: traitCountsSql(db.database, 'acc_a', s, 'plan', { person, ...(check ? { check } : {}) }),
        format: 'JSON',
      })
      const { data, totals } = await r.json<BreakdownRow>()
      return {
        trend: toTrend(breakdownRows(data, totals as BreakdownRow | undefined), s),
        unnamed: Number(totals?.unnamed),
      }
    }
    t.same(
      await byHashes(LENGTH_HASH),
      { trend: await u27Trend(s), unnamed: 0 },
      `one first hash: ${JSON.stringify(s)}`,
    )
    t.equal((await byHashes(LENGTH_HASH, 'length(user_id)')).unnamed, 1, `both hashes shared: ${JSON.stringify(s)}`)
  }

  const all = await q.trend('acc_a', spec())
  const totals = all.series.map((x): [string, number] => [x.value, x.counts.reduce((a, b) => a + b, 0)])
  t.same(
    totals,
    [
      ['p0', 14],
      ['p1', 13],
      ['p2', 12],
      ['p3', 11],
      ['p4', 10],
      ['p5', 9],
      ['p6', 8],
      ['p7', 7],
      ['', 2 + 3 + 1],
      ['p8', 6],
      [OTHER, 5 + 4 + 3 + 3 + 2 + 2 + 2],
    ],
    'duplicates once, the latest value, numbers and no trait as U27 counts them',
  )

  // U32: the events read as stored when the period holds no duplicate, with FINAL otherwise; the answer is
  // U27's either way. The trait reads each trend sends are seen through the client.
  const sent: string[] = []
  let before: (query: string) => Promise<void> = async () => {}
  const seeing = {
    query: async (p: Parameters<ClickHouseClient['query']>[0]) => {
      await before(p.query)
      sent.push(p.query)
      return db.client.query(p)
    },
  } as unknown as ClickHouseClient
  const final = (query: string) => query.includes(`${ident(db.database, 'events')} FINAL`)
  const counted = (query: string) => query.includes(`${ident(db.database, 'person_counts_daily')} FINAL`)
  const reads = async (s: TrendSpec, counts: boolean) => {
    sent.length = 0
    const trend = await new TrendQueries(seeing, db.database, counts).trend('acc_a', s)
    const traitReads = sent
      .filter((x) => x.includes('user_traits'))
      .map((x) => (counted(x) ? 'counted' : final(x) ? 'final' : 'stored'))
    return { trend, traitReads }
  }
  // U33: by day or week over every event, with the counts kept, the days no dirty hour holds.
  const readsDays = (s: TrendSpec, counts: boolean) =>
    counts && s.interval !== 'hour' && !s.event && s.filters.length === 0
  const table = (name: string) => `${db.database}.${name}${db.cluster ? '_local' : ''}`
  // The retried insert above is still stored twice: FINAL, whether the exact count is the counts' or the events'.
  for (const counts of [false, true])
    t.same(await reads(spec(), counts), { trend: await u27Trend(spec()), traitReads: ['final'] }, 'a duplicate: FINAL')
  // Merged (no duplicate left) and the hours counted (U25, as HourRecount does: the counts, then the
  // marks): every spec read as stored, or from the daily person counts (U33), the same answer.
  await db.client.command({ query: `OPTIMIZE TABLE ${table('events')} FINAL` })
  const recount = async (rows: Array<{ timestamp_ms: number }>) => {
    const markedMs = Date.now()
    await recountRanges(db.client, db.database, markRanges(hoursOf(rows)))
    await insertMarks(db.client, db.database, hoursOf(rows), { markedMs, dirty: false })
  }
  await recount(events)
  for (const counts of [false, true])
    for (const s of specs)
      t.same(
        await reads(s, counts),
        { trend: await u27Trend(s), traitReads: [readsDays(s, counts) ? 'counted' : 'stored'] },
        `as stored: ${JSON.stringify(s)}`,
      )
  // A duplicate inside the period counts once: the stored count is larger than the exact one, so FINAL; the
  // daily counts were counted from `events FINAL` and the rest is read with FINAL.
  await insert('events', [events[30]!])
  for (const counts of [false, true])
    t.same(
      await reads(spec(), counts),
      { trend: await u27Trend(spec()), traitReads: [counts ? 'counted' : 'final'] },
      'a new duplicate: FINAL',
    )
  // A day with a dirty hour is read from the events (U33): new events of the second day, marked dirty as the
  // projector does, are counted though its daily rows do not hold them yet; once recounted, from the days.
  const later = [event('u5', T0 + 30 * H + 7 * 60_000), event('changed', T0 + 31 * H), event('newcomer', T0 + 32 * H)]
  await insert('events', later)
  await markDirty(later)
  for (const s of [spec(), spec({ interval: 'week' }), spec({ environment: 'live' })])
    t.same(
      await reads(s, true),
      { trend: await u27Trend(s), traitReads: ['counted'] },
      `a dirty day: ${JSON.stringify(s)}`,
    )
  t.not(JSON.stringify(await u27Trend(spec())), JSON.stringify(all), 'the new events changed the answer')
  await recount(later)
  for (const s of [spec(), spec({ interval: 'week' })])
    t.same(
      await reads(s, true),
      { trend: await u27Trend(s), traitReads: ['counted'] },
      `recounted: ${JSON.stringify(s)}`,
    )
  // One written between the stored count and the stored breakdown: the breakdown's own count shows it.
  await db.client.command({ query: `OPTIMIZE TABLE ${table('events')} FINAL` })
  before = async (query) => {
    if (!query.includes('user_traits') || final(query)) return
    before = async () => {}
    await insert('events', [events[31]!])
  }
  const raced = await reads(spec(), false)
  t.same(
    raced,
    { trend: await u27Trend(spec()), traitReads: ['stored', 'final'] },
    'a duplicate during the read: FINAL',
  )
  t.same(
    raced.trend.series.map((x) => x.counts.reduce((a, b) => a + b, 0)).reduce((a, b) => a + b, 0),
    totals.reduce((a, [, n]) => a + n, 0) + later.length,
    'the duplicates counted once',
  )

  /** U27's query as it was: each event of the period joined to its person's value, then counted. */
  async function u27Trend(s: TrendSpec) {
    const r = await db.client.query({
      query: sql`SELECT value, count() AS events, sumMap([t], [toUInt64(1)]) AS m FROM (
  SELECT ${bucketSql(s.interval)} AS t, environment, user_id
  FROM ${ident(db.database, 'events')} FINAL
  WHERE account_id = 'acc_a' AND timestamp_ms >= ${s.from.getTime()} AND timestamp_ms < ${s.to.getTime()}
    AND event LIKE ${s.event ?? '%'} AND toString(environment) LIKE ${s.environment ?? '%'}
    ${raw(s.filters.map((f) => sql`AND ${propertySql(f.key)} = ${f.value}`).join(' '))}
) AS e ANY LEFT JOIN (
  SELECT environment, user_id, ${valueTextSql('value')} AS value
  FROM ${ident(db.database, 'user_traits')} FINAL
  WHERE account_id = 'acc_a' AND trait_key = 'plan'
) AS tr USING (environment, user_id)
GROUP BY value WITH TOTALS
ORDER BY events DESC, value
LIMIT ${BREAKDOWN_TOP}`,
      format: 'JSON',
    })
    const { data, totals } = await r.json<BreakdownRow>()
    return toTrend(breakdownRows(data, totals as BreakdownRow | undefined), s)
  }
}
