// The Trends page's read (decision U13 of docs/design.md): counts of one event (or all) per hour, day
// or week over a period, optionally broken down by one property (its 10 most frequent values and
// "$other"), filtered by property values. The SQL is built by a pure function, every value bound by
// schemas/clickhouse/sql.ts; only functions ClickHouse 18.16 has are used (A9, A10): buckets are
// integer arithmetic on the UTC second (no time-zone functions), and properties are read with
// visitParamExtract*, which reads a top-level key of the stored JSON text.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, sql, raw, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import type { Environment } from './queries.js'
import { EVENT_COUNTS_TABLE, hourCeil, hourFloor } from '../../../shared/src/rollup/event-counts.js'
import { dirtyHours, hoursCondition, notTheseHours, spansCondition } from '../../../shared/src/rollup/dirty-hours.js'
import { PROPERTY_COUNTS_TABLE, propertyValueSql, valueTextSql } from '../../../shared/src/rollup/property-counts.js'
import { countedDays, PROPERTY_DAYS_TABLE } from '../../../shared/src/rollup/property-days.js'
import { PERSON_CHECK_SQL, PERSON_DAYS_TABLE, PERSON_SQL } from '../../../shared/src/rollup/person-days.js'

export type Interval = 'hour' | 'day' | 'week'
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week']
export interface TrendFilter {
  key: string
  value: string
}
export interface TrendSpec {
  event?: string
  environment?: Environment
  from: Date
  to: Date
  interval: Interval
  breakdown?: string
  /** A breakdown by the person's trait of this key (U27) instead of a property. */
  breakdownTrait?: string
  filters: TrendFilter[]
}
export interface TrendSeries {
  value: string
  counts: number[]
}
export interface Trend {
  buckets: string[]
  series: TrendSeries[]
}

/** Values of the breakdown property shown apart; the rest are summed as OTHER. */
export const BREAKDOWN_TOP = 10
export const OTHER = '$other'
const SECONDS: Record<Interval, number> = { hour: 3600, day: 86_400, week: 7 * 86_400 }
// 1970-01-01 was a Thursday: weeks start on Monday, 3 days before the epoch's week boundary.
const WEEK_SHIFT_S = 3 * 86_400

/** The bucket start (epoch seconds, UTC) of a time, as the SQL computes it. */
export function bucketStart(ms: number, interval: Interval): number {
  const s = Math.floor(ms / 1000)
  const shift = interval === 'week' ? WEEK_SHIFT_S : 0
  return Math.floor((s + shift) / SECONDS[interval]) * SECONDS[interval] - shift
}

/** The bucket start of a DateTime column; an hour's bucket is its events' bucket, as buckets are whole hours. */
export function bucketSql(interval: Interval, column = 'timestamp'): SqlRaw {
  const shift = interval === 'week' ? WEEK_SHIFT_S : 0
  return raw(`(intDiv(toUInt32(${column}) + ${shift}, ${SECONDS[interval]}) * ${SECONDS[interval]} - ${shift})`)
}

/** A property's value as text: a string without its quotes, any other JSON value as written. */
export function propertySql(key: string): SqlRaw {
  return raw(
    sql`if(visitParamExtractString(properties, ${key}) != '', visitParamExtractString(properties, ${key}), visitParamExtractRaw(properties, ${key}))`,
  )
}

function whereSql(accountId: string, s: TrendSpec): SqlRaw {
  return raw(
    // `timestamp` (whole seconds, the sort key) narrows the read; `timestamp_ms` is the exact bound, so an
    // event of the period's last second counts (compared by the second, one sent just before a "now"
    // bound in the same second was left out).
    sql`account_id = ${accountId} AND timestamp >= toDateTime(${s.from}, 'UTC') AND timestamp <= toDateTime(${s.to}, 'UTC')` +
      sql` AND timestamp_ms >= ${s.from.getTime()} AND timestamp_ms < ${s.to.getTime()}` +
      (s.event ? sql` AND event = ${s.event}` : '') +
      (s.environment ? sql` AND environment = ${s.environment}` : '') +
      s.filters.map((f) => sql` AND ${propertySql(f.key)} = ${f.value}`).join(''),
  )
}

/**
 * The query of a trend: rows of (bucket epoch seconds, '' , events), or with a breakdown the rows of
 * breakdownSql. With a filter, or when the hourly counts are not kept, the events are read (rawTrendSql,
 * breakdownSql); otherwise the hourly counts (countsTrendSql, breakdownCountsSql).
 */
export function trendSql(database: string, accountId: string, s: TrendSpec, dirty?: readonly number[]): string {
  if (s.breakdownTrait) return traitBreakdownSql(database, accountId, s, s.breakdownTrait)
  if (!readsCounts(s, dirty))
    return s.breakdown ? breakdownSql(database, accountId, s, s.breakdown) : rawTrendSql(database, accountId, s)
  if (s.breakdown) return breakdownCountsSql(database, accountId, s, s.breakdown, dirty)
  return countsTrendSql(database, accountId, s, dirty)
}

/** The hourly counts answer a trend without a filter, when they are kept (U19; a breakdown's, U26). */
const readsCounts = (s: TrendSpec, dirty: readonly number[] | undefined): dirty is readonly number[] =>
  dirty !== undefined && s.filters.length === 0 && !s.breakdownTrait

/** The whole hours of a trend's period, [fromMs, toMs): what countsTrendSql reads from the counts. */
export function wholeHours(s: TrendSpec): { fromMs: number; toMs: number } {
  const fromMs = hourCeil(s.from.getTime())
  return { fromMs, toMs: Math.max(fromMs, hourFloor(s.to.getTime())) }
}

/**
 * The events table, with `FINAL` (a duplicate counted once) or without (U32: a read that may count a
 * duplicate twice, used only where the count of the same read shows there was none).
 */
const eventsSql = (database: string, final: boolean): SqlRaw =>
  raw(`${ident(database, 'events')}${final ? ' FINAL' : ''}`)

/**
 * The trend counted from the events themselves: the reference the hourly counts must equal (U19). Without
 * `final`, the rows read, duplicates and all (U32's check).
 */
export function rawTrendSql(database: string, accountId: string, s: TrendSpec, final = true): string {
  return sql`SELECT ${bucketSql(s.interval)} AS t, '' AS value, count() AS events
FROM ${eventsSql(database, final)}
WHERE ${whereSql(accountId, s)}
GROUP BY t
ORDER BY t`
}

/**
 * The trend from the hourly counts (U19): the whole hours of the period from event_counts_hourly FINAL,
 * and the events of its partial first and last hours from `events FINAL` (a period shorter than an hour
 * is all events), and of its `dirty` hours (U25: not counted yet, the current hour among them; ms on the
 * hour, ascending, inside the whole hours). Exact like rawTrendSql, reading one row per event name and
 * counted hour. The partial hours are written as `timestamp` ranges alone: ANDed with the period's whole
 * range as well, the server read every event of the period (2.5 s at 10 million events against 0.1 s).
 */
export function countsTrendSql(
  database: string,
  accountId: string,
  s: TrendSpec,
  dirty: readonly number[] = [],
): string {
  return sql`SELECT t, '' AS value, sum(n) AS events FROM (
  SELECT ${bucketSql(s.interval, 'hour')} AS t, events AS n
  FROM ${ident(database, EVENT_COUNTS_TABLE)} FINAL
  WHERE ${countedHoursWhere(accountId, s, dirty)}
  UNION ALL
  SELECT ${bucketSql(s.interval)} AS t, count() AS n
  FROM ${ident(database, 'events')} FINAL
  WHERE ${uncountedHoursWhere(accountId, s, dirty)}
  GROUP BY t
)
GROUP BY t
ORDER BY t`
}

/** The event and environment a trend is narrowed to, as conditions on a table's own columns. */
const scopeSql = (s: TrendSpec): string =>
  (s.event ? sql` AND event = ${s.event}` : '') + (s.environment ? sql` AND environment = ${s.environment}` : '')

/** The rows of a counts table (column `hour`) for the whole hours of the period but the dirty ones. */
function countedHoursWhere(accountId: string, s: TrendSpec, dirty: readonly number[]): SqlRaw {
  const { fromMs, toMs } = wholeHours(s)
  return raw(
    sql`account_id = ${accountId} AND hour >= toDateTime(${new Date(fromMs)}, 'UTC') AND hour < toDateTime(${new Date(toMs)}, 'UTC')${raw(scopeSql(s))}
    AND ${raw(notTheseHours(dirty))}`,
  )
}

/** The events the counts tables do not answer for: the partial first and last hours and the dirty hours. */
function uncountedHoursWhere(accountId: string, s: TrendSpec, dirty: readonly number[]): SqlRaw {
  const { fromMs: wholeFrom, toMs: wholeTo } = wholeHours(s)
  return raw(
    sql`account_id = ${accountId}${raw(scopeSql(s))}
    AND ((timestamp >= toDateTime(${s.from}, 'UTC') AND timestamp < toDateTime(${new Date(wholeFrom)}, 'UTC'))
      OR (timestamp >= toDateTime(${new Date(wholeTo)}, 'UTC') AND timestamp <= toDateTime(${s.to}, 'UTC'))
      OR ${raw(hoursCondition(dirty))})
    AND timestamp_ms >= ${s.from.getTime()} AND timestamp_ms < ${s.to.getTime()}
    AND (timestamp_ms < ${wholeFrom} OR timestamp_ms >= ${wholeTo} OR ${raw(hoursCondition(dirty))})`,
  )
}

/**
 * A breakdown in one scan (U13): one row per value with its count per bucket as sumMap's
 * (buckets, counts), the BREAKDOWN_TOP most frequent kept, and WITH TOTALS the same over every value,
 * from which the rest ($other) is the difference. Exact; sumMap and WITH TOTALS are on 18.16 (A9).
 */
export function breakdownSql(database: string, accountId: string, s: TrendSpec, key: string): string {
  return sql`SELECT ${propertyValueSql(key)} AS value, count() AS events, sumMap([${bucketSql(s.interval)}], [toUInt64(1)]) AS m
FROM ${ident(database, 'events')} FINAL
WHERE ${whereSql(accountId, s)}
GROUP BY value WITH TOTALS
ORDER BY events DESC, value
LIMIT ${BREAKDOWN_TOP}`
}

/**
 * The breakdown from the counts (U26, U29), in breakdownSql's shape: the counted whole days' values from
 * property_counts_daily FINAL (by day or week; countedDays: no dirty hour in the day), the other counted
 * hours' from property_counts_hourly FINAL, the events without the key ('') as the hours' count in
 * event_counts_hourly less the key's rows, and the partial and dirty hours from `events FINAL` as
 * countsTrendSql reads them. Exact like breakdownSql: every table is recounted from `events FINAL` (the
 * days from the recounted hours) before an hour is marked counted.
 */
export function breakdownCountsSql(
  database: string,
  accountId: string,
  s: TrendSpec,
  key: string,
  dirty: readonly number[] = [],
): string {
  const counted = countedHoursWhere(accountId, s, dirty)
  const whole = wholeHours(s)
  // An hour's buckets cannot be read from a day's rows.
  const days = s.interval === 'hour' ? [] : countedDays(whole.fromMs, whole.toMs, dirty)
  // Each row of the key read once: its count under its value, and taken from the hour's '' (arrayJoin).
  const keyRows = (column: string) =>
    raw(
      sql`SELECT ${bucketSql(s.interval, column)} AS t, arrayJoin([(value, toInt64(events)), ('', -toInt64(events))]) AS vn`,
    )
  return sql`SELECT value, sum(n) AS events, sumMap([t], [n]) AS m FROM (
  SELECT t, vn.1 AS value, vn.2 AS n FROM (
    ${keyRows('hour')}
    FROM ${ident(database, PROPERTY_COUNTS_TABLE)} FINAL WHERE key = ${key} AND ${counted} AND NOT ${raw(spansCondition(days, 'hour'))}
    UNION ALL
    ${keyRows('day')}
    FROM ${ident(database, PROPERTY_DAYS_TABLE)} FINAL
    WHERE account_id = ${accountId} AND key = ${key} AND ${raw(spansCondition(days, 'day'))}${raw(scopeSql(s))}
  )
  UNION ALL
  SELECT ${bucketSql(s.interval, 'hour')} AS t, '' AS value, toInt64(events) AS n
  FROM ${ident(database, EVENT_COUNTS_TABLE)} FINAL WHERE ${counted}
  UNION ALL
  SELECT ${bucketSql(s.interval)} AS t, ${propertyValueSql(key)} AS value, toInt64(count()) AS n
  FROM ${ident(database, 'events')} FINAL
  WHERE ${uncountedHoursWhere(accountId, s, dirty)}
  GROUP BY t, value
)
GROUP BY value WITH TOTALS
HAVING events != 0
ORDER BY events DESC, value
LIMIT ${BREAKDOWN_TOP}`
}

/**
 * A breakdown by a trait (U27): each event counted under its person's value of the trait as `user_traits`
 * holds it when the query runs (the latest, FINAL; the event's user_id and environment; '' for an event
 * without a user id or a person without the trait), in breakdownSql's shape. The period's events (FINAL:
 * a duplicate counts once) are joined once to the account's values of that one trait (a row per person),
 * then counted per value and bucket (U30): the join is keyed by the user id's 64-bit hash, a fixed-size key
 * (a String key was most of the query's time), and the id itself is compared after it, so two ids of one
 * hash never share a value: the persons of a hash are one row with the first's id and value, and the
 * persons of every hash held by several (never seen, kept for exactness) are one constant list of
 * (environment, id, value), read once by a scalar subquery, in which an event whose id is not its row's is
 * looked up (U32: a list per joined row, nearly always empty, cost a quarter of the query). `hash` is the
 * function of the id: cityHash64, or a test's hash that collides on purpose. The reference trendSql gives,
 * and the read TrendQueries falls back on when traitCountsSql (U33) cannot be exact.
 */
export function traitBreakdownSql(
  database: string,
  accountId: string,
  s: TrendSpec,
  key: string,
  hash = 'cityHash64',
): string {
  const person = raw(`${hash}(user_id) AS person`)
  const traits = raw(sql`SELECT environment, user_id, ${valueTextSql('value')} AS text
      FROM ${ident(database, 'user_traits')} FINAL
      WHERE account_id = ${accountId} AND trait_key = ${key}${raw(s.environment ? sql` AND environment = ${s.environment}` : '')}`)
  const collided = raw(sql`(SELECT groupArray((environment, p.1, p.2)) FROM (
      SELECT environment, ${person}, groupArray((user_id, text)) AS ps FROM (${traits})
      GROUP BY environment, person HAVING count() > 1
    ) ARRAY JOIN ps AS p)`)
  return sql`SELECT value, sum(n) AS events, sumMap([t], [n]) AS m FROM (
  SELECT if(trait_user = user_id, v, arrayFirst(x -> x.1 = environment AND x.2 = user_id, ${collided}).3) AS value,
    t, count() AS n FROM (
    SELECT ${bucketSql(s.interval)} AS t, environment, user_id, ${person}
    FROM ${eventsSql(database, true)}
    WHERE ${whereSql(accountId, s)}
  ) AS e ANY LEFT JOIN (
    SELECT environment, ${person}, any(user_id) AS trait_user, any(text) AS v
    FROM (
      ${traits}
    )
    GROUP BY environment, person
  ) AS tr USING (environment, person)
  GROUP BY value, t
)
GROUP BY value WITH TOTALS
ORDER BY events DESC, value
LIMIT ${BREAKDOWN_TOP}`
}

/**
 * The trait breakdown read by hashes (U33), in breakdownSql's shape plus `unnamed`: as traitBreakdownSql
 * counts, but a row's person is two hashes of its environment and id by different functions (`person` and
 * `person_check`, PERSON_SQL and PERSON_CHECK_SQL), the join's one key of 128 bits, as uniqExact tells
 * strings apart (it keeps their SipHash-128), and a value is its text's cityHash64 (`label`): numbers flow
 * through the join and the grouping instead of texts, and the values are named after, from a second read of
 * the trait. `unnamed` is 1 when this read cannot be exact, and the caller then reads traitBreakdownSql: two
 * persons of one key (never seen; their rows are labelled 1, which names nothing), or a label held by two
 * texts or whose text was gone at the second read (a trait written between the reads). With `days` (whole
 * days of the period, from countedDays) those days' rows are person_counts_daily's, one per person and day
 * with their count, and only the rest of the period is read from the events; without `final` the events
 * are read as stored (U32).
 */
export function traitCountsSql(
  database: string,
  accountId: string,
  s: TrendSpec,
  key: string,
  opts: {
    days?: readonly { fromMs: number; toMs: number }[]
    final?: boolean
    /** A test's hashes that collide on purpose (the stored days keep PERSON_SQL's and PERSON_CHECK_SQL's). */
    person?: string
    check?: string
  } = {},
): string {
  const days = opts.days ?? []
  const [person, check] = [opts.person ?? PERSON_SQL, opts.check ?? PERSON_CHECK_SQL]
  const environment = s.environment ? sql` AND environment = ${s.environment}` : ''
  const traits = sql`SELECT environment, user_id, ${valueTextSql('value')} AS text
      FROM ${ident(database, 'user_traits')} FINAL
      WHERE account_id = ${accountId} AND trait_key = ${key}${raw(environment)}`
  const eventRows = (
    where: SqlRaw,
  ) => `SELECT ${bucketSql(s.interval)} AS t, ${person} AS person, ${check} AS person_check, toUInt64(1) AS n
      FROM ${eventsSql(database, opts.final ?? true)}
      WHERE ${where}`
  const rows =
    days.length === 0
      ? eventRows(whereSql(accountId, s))
      : `${eventRows(outsideDaysWhere(accountId, s, days))}
      UNION ALL
      SELECT ${bucketSql(s.interval, 'day')} AS t, person, person_check, events AS n
      FROM ${ident(database, PERSON_DAYS_TABLE)} FINAL
      WHERE ${sql`account_id = ${accountId}`} AND ${spansCondition(days, 'day')}${environment}`
  return `SELECT value, sum(n) AS events, sumMap([t], [n]) AS m, max(unnamed) AS unnamed FROM (
  SELECT label_text AS value, n, t, label != 0 AND texts != 1 AS unnamed FROM (
    SELECT label, t, sum(n) AS n FROM (
      ${rows}
    ) AS e ANY LEFT JOIN (
      SELECT ${person} AS person, ${check} AS person_check, if(count() = 1, any(cityHash64(text)), 1) AS label
      FROM (${traits})
      GROUP BY person, person_check
    ) AS tr USING (person, person_check)
    GROUP BY label, t
  ) AS c ANY LEFT JOIN (
    SELECT cityHash64(text) AS label, any(text) AS label_text, uniqExact(text) AS texts FROM (${traits}) GROUP BY label
  ) AS names USING (label)
)
GROUP BY value WITH TOTALS
ORDER BY events DESC, value
LIMIT ${BREAKDOWN_TOP}`
}

/**
 * The period's events outside the days (whole days, ascending, inside it): the spans before, between and
 * after them as ranges of `timestamp` alone (the sort key, so the server reads only those), the last
 * taking in the period's last second, and the exact bounds on `timestamp_ms`.
 */
function outsideDaysWhere(accountId: string, s: TrendSpec, days: readonly { fromMs: number; toMs: number }[]): SqlRaw {
  const spans: Array<{ fromMs: number; toMs: number }> = []
  let at = s.from.getTime()
  for (const d of days) {
    if (d.fromMs > at) spans.push({ fromMs: at, toMs: d.fromMs })
    at = d.toMs
  }
  spans.push({ fromMs: at, toMs: s.to.getTime() + 1000 })
  return raw(
    sql`account_id = ${accountId} AND ${raw(spansCondition(spans))}` +
      sql` AND timestamp_ms >= ${s.from.getTime()} AND timestamp_ms < ${s.to.getTime()}` +
      scopeSql(s),
  )
}

type Count = string | number
/** A row of breakdownSql in the JSON format: the value, its total and its counts per bucket. */
export interface BreakdownRow {
  value: string
  events: Count
  m: [Count[], Count[]]
  /** traitCountsSql's: 1 if the read cannot be exact. */
  unnamed?: Count
}

/** Rows of breakdownSql and its totals as the rows toTrend reads; OTHER is what the top values leave. */
export function breakdownRows(
  top: BreakdownRow[],
  totals: BreakdownRow | undefined,
): Array<{ t: Count; value: string; events: Count }> {
  const rows = top.flatMap((r) => r.m[0].map((t, i) => ({ t, value: r.value, events: r.m[1][i]! })))
  const rest = new Map<number, number>()
  const [ts, counts] = totals?.m ?? [[], []]
  ts.forEach((t, i) => rest.set(Number(t), Number(counts[i])))
  for (const r of rows) rest.set(Number(r.t), (rest.get(Number(r.t)) ?? 0) - Number(r.events))
  for (const [t, events] of rest) if (events > 0) rows.push({ t, value: OTHER, events })
  return rows
}

/** Rows of trendSql as series over every bucket of the period, empty buckets 0; OTHER last. */
export function toTrend(
  rows: Array<{ t: string | number; value: string; events: string | number }>,
  s: TrendSpec,
): Trend {
  const step = SECONDS[s.interval]
  const starts: number[] = []
  for (let b = bucketStart(s.from.getTime(), s.interval); b * 1000 < s.to.getTime(); b += step) starts.push(b)
  const index = new Map(starts.map((b, i) => [b, i]))
  const byValue = new Map<string, number[]>()
  for (const r of rows) {
    const counts = byValue.get(r.value) ?? byValue.set(r.value, new Array(starts.length).fill(0)).get(r.value)!
    const i = index.get(Number(r.t))
    if (i !== undefined) counts[i]! += Number(r.events)
  }
  const total = (c: number[]) => c.reduce((a, b) => a + b, 0)
  const series = [...byValue].map(([value, counts]) => ({ value, counts }))
  series.sort((a, b) => Number(a.value === OTHER) - Number(b.value === OTHER) || total(b.counts) - total(a.counts))
  return { buckets: starts.map((b) => new Date(b * 1000).toISOString()), series }
}

/** A trend as CSV: one row per bucket, one column per series (U13 of docs/design.md). */
export function trendCsv(trend: Trend): string {
  // A leading = + - @ would be a formula to a spreadsheet: the value is kept as text.
  const text = (x: string) => (/^[=+\-@]/.test(x) ? `'${x}` : x)
  const cell = (x: string) => (/[",\r\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x)
  const head = ['bucket', ...trend.series.map((s) => s.value || 'events')].map((x) => cell(text(x))).join(',')
  const lines = trend.buckets.map((b, i) => [b, ...trend.series.map((s) => String(s.counts[i]))].join(','))
  return `${[head, ...lines].join('\r\n')}\r\n`
}

export class TrendQueries {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
    /** HOURLY_COUNTS (U19): read event_counts_hourly, which the projector keeps only when it is on. */
    private readonly hourlyCounts = false,
  ) {}

  async trend(accountId: string, s: TrendSpec): Promise<Trend> {
    if (s.breakdownTrait) return this.traitTrend(accountId, s, s.breakdownTrait)
    const query = trendSql(this.database, accountId, s, await this.dirtyHours(accountId, s))
    if (!s.breakdown) return toTrend(await this.rows(query), s)
    return toTrend((await this.breakdown(query)).rows, s)
  }

  /**
   * The trait breakdown (U27, U30). By day or week over every event, with the hourly counts kept, the whole
   * days of the period without a dirty hour are read from person_counts_daily and the rest from
   * `events FINAL` (U33): exact as it stands. Otherwise the events are read without `FINAL` when the period
   * holds no duplicate (U32): the period's exact count (the same spec's trend, from the counts or
   * `events FINAL`) is read first, then the events' count as stored; only if they are equal is the
   * breakdown read as stored, and kept only if the count of that same read (its totals) is equal too. A
   * stored count is never below the exact one and is equal only when no event of the period is stored
   * twice, and read after the exact count an insert in between can only make it larger: so the answer is
   * the one `events FINAL` gives. After a read traitCountsSql says cannot be exact (`unnamed`), or with a
   * duplicate not merged yet, the period is read as trendSql has it: traitBreakdownSql, with `FINAL`.
   */
  private async traitTrend(accountId: string, s: TrendSpec, key: string): Promise<Trend> {
    const named = (r: { totals?: BreakdownRow }) => Number(r.totals?.unnamed ?? 0) === 0
    const { breakdownTrait: _, ...plain } = s
    const days = await this.personDays(accountId, plain)
    if (days.length > 0) {
      const counted = await this.breakdown(traitCountsSql(this.database, accountId, s, key, { days }))
      if (named(counted)) return toTrend(counted.rows, s)
    } else {
      const total = (rows: Array<{ events: string | number }>) => rows.reduce((a, r) => a + Number(r.events), 0)
      const exact = total(
        await this.rows(trendSql(this.database, accountId, plain, await this.dirtyHours(accountId, plain))),
      )
      if (total(await this.rows(rawTrendSql(this.database, accountId, plain, false))) === exact) {
        const stored = await this.breakdown(traitCountsSql(this.database, accountId, s, key, { final: false }))
        if (named(stored) && total(stored.totals ? [stored.totals] : []) === exact) return toTrend(stored.rows, s)
      }
    }
    return toTrend((await this.breakdown(trendSql(this.database, accountId, s))).rows, s)
  }

  /**
   * The whole days of a trait breakdown's period read from person_counts_daily (U33): by day or week, over
   * every event and no filter (the table counts a person's events of a day, whatever their name or
   * properties), when the hourly counts are kept, those without a dirty hour. None: the events are read.
   * `plain` is the spec without its breakdown, whose dirty hours dirtyHours reads.
   */
  private async personDays(accountId: string, plain: TrendSpec): Promise<Array<{ fromMs: number; toMs: number }>> {
    if (plain.event || plain.interval === 'hour') return []
    const dirty = await this.dirtyHours(accountId, plain)
    if (dirty === undefined) return []
    const whole = wholeHours(plain)
    return countedDays(whole.fromMs, whole.toMs, dirty)
  }

  private async rows(query: string): Promise<Array<{ t: string | number; value: string; events: string | number }>> {
    const r = await this.ch.query({ query, format: 'JSONEachRow' })
    return r.json()
  }

  /** A breakdown's rows as toTrend reads them, and its totals row (undefined when no event was read). */
  private async breakdown(query: string) {
    const r = await this.ch.query({ query, format: 'JSON' })
    const { data, totals } = await r.json<BreakdownRow>()
    const all = totals as BreakdownRow | undefined
    return { rows: breakdownRows(data, all), totals: all }
  }

  /** The period's hours not counted yet (U25), when the trend reads the counts; else undefined. */
  private async dirtyHours(accountId: string, s: TrendSpec): Promise<number[] | undefined> {
    if (!this.hourlyCounts || !readsCounts(s, [])) return undefined
    const whole = wholeHours(s)
    return dirtyHours(this.ch, this.database, accountId, whole.fromMs, whole.toMs)
  }
}
