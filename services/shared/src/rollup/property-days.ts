// The daily property counts (decision U29 of docs/design.md, schemas/clickhouse/017_property_counts_daily.sql):
// property_counts_hourly's rows summed per UTC day, what a Trends breakdown by day or week reads for the whole
// days of its period that hold no dirty hour (a key with a value per event has about one hourly row per
// event; a day row stands for up to 24 of them). A day's rows are summed from the hourly rows `FINAL`, not
// from the events, whenever the recount counts one of its hours (U25), after that hour's rows are written:
// an hour with no events has no rows and is never marked, so a day is complete as soon as none of its
// hours is dirty, and a day whose hour is dirty is read from the hours until that hour is recounted, which
// sums the day again. Versioned by the count as the hourly table: of two sums of one row, the larger, and
// the later of two concurrent recounts reads the other's hours (each writes its hours before it sums).
import { ident } from '../../../../schemas/clickhouse/sql.js'
import { type HourRange, rangeConditions } from './event-counts.js'
import { PROPERTY_COUNTS_TABLE } from './property-counts.js'

export const PROPERTY_DAYS_TABLE = 'property_counts_daily'
export const DAY_MS = 86_400_000

export const dayFloor = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS
export const dayCeil = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS

/** The day (UTC) of an hourly row, as a DateTime; integer arithmetic, valid on 18.16 (A10). */
const DAY_OF_HOUR = "toDateTime(intDiv(toUInt32(hour), 86400) * 86400, 'UTC')"

/** The SELECT summing the hourly rows matching `where` per day (the recount's and migration 017's backfill). */
export function propertyDaysSelect(database: string, where: string): string {
  return `SELECT account_id, environment, event, ${DAY_OF_HOUR} AS d, key, value, sum(events) AS events
FROM ${ident(database, PROPERTY_COUNTS_TABLE).text} FINAL
WHERE ${where}
GROUP BY account_id, environment, event, d, key, value`
}

/** The whole days the hour ranges fall in, consecutive or overlapping days of an account joined. */
export function dayRanges(ranges: readonly HourRange[]): HourRange[] {
  const days = ranges
    .map((r) => ({ accountId: r.accountId, fromMs: dayFloor(r.fromMs), toMs: dayCeil(r.toMs) }))
    .sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.fromMs - b.fromMs))
  const out: HourRange[] = []
  for (const d of days) {
    const last = out.at(-1)
    if (last && last.accountId === d.accountId && last.toMs >= d.fromMs) last.toMs = Math.max(last.toMs, d.toMs)
    else out.push({ ...d })
  }
  return out
}

/**
 * Sums again the days of the ranges (hours of one month group: a day never crosses a month, so the days
 * stay in the group's months) from their hourly rows; `hour` bounds whole days exactly.
 */
export function propertyDayStatements(database: string, ranges: readonly HourRange[]): string[] {
  const table = ident(database, PROPERTY_DAYS_TABLE).text
  return rangeConditions(dayRanges(ranges), 'hour').map(
    (where) =>
      `INSERT INTO ${table} (account_id, environment, event, day, key, value, events)\n${propertyDaysSelect(database, where)}`,
  )
}

/**
 * The days of [fromMs, toMs) a breakdown reads from the daily rows: the whole days inside it without a
 * dirty hour (ms on the hour), as ranges of consecutive days (`accountId` unused: ''). Ascending.
 */
export function countedDays(fromMs: number, toMs: number, dirty: readonly number[]): HourRange[] {
  const dirtyDays = new Set(dirty.map(dayFloor))
  const out: HourRange[] = []
  for (let d = dayCeil(fromMs); d + DAY_MS <= toMs; d += DAY_MS) {
    if (dirtyDays.has(d)) continue
    const last = out.at(-1)
    if (last && last.toMs === d) last.toMs = d + DAY_MS
    else out.push({ accountId: '', fromMs: d, toMs: d + DAY_MS })
  }
  return out
}
