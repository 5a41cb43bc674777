// The hourly event counts (decision U19 of docs/design.md, schemas/clickhouse/012_event_counts_hourly.sql):
// which hours a write touched, and the statement that recomputes those hours from `events FINAL`. One
// source for the projector's writer (after each batch, replays included, A1) and the dashboard bench's
// fill; the dashboard reads the table for whole hours and the events for the rest.
import { ident, sql, type SqlIdentifier } from '../../../../schemas/clickhouse/sql.js'

export const EVENT_COUNTS_TABLE = 'event_counts_hourly'
export const HOUR_MS = 3_600_000

/** The hours [fromMs, toMs) of one account to recompute; both bounds on an hour. */
export interface HourRange {
  accountId: string
  fromMs: number
  toMs: number
}

export const hourFloor = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
export const hourCeil = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS

/** The hours the records' events fall in, per account, consecutive hours joined into one range. */
export function touchedHours(records: Iterable<{ account_id: string; timestamp: number }>): HourRange[] {
  const byAccount = new Map<string, Set<number>>()
  for (const r of records) {
    const hours = byAccount.get(r.account_id) ?? byAccount.set(r.account_id, new Set()).get(r.account_id)!
    hours.add(hourFloor(r.timestamp))
  }
  const ranges: HourRange[] = []
  for (const [accountId, hours] of byAccount) {
    const sorted = [...hours].sort((a, b) => a - b)
    for (const h of sorted) {
      const last = ranges.at(-1)
      if (last && last.accountId === accountId && last.toMs === h) last.toMs = h + HOUR_MS
      else ranges.push({ accountId, fromMs: h, toMs: h + HOUR_MS })
    }
  }
  return ranges
}

/** The hour (UTC) of an event row, as a DateTime; integer arithmetic, valid on 18.16 (A9). */
export const HOUR_OF_TIMESTAMP = "toDateTime(intDiv(toUInt32(timestamp), 3600) * 3600, 'UTC')"

/**
 * Recomputes the ranges' rows from `events FINAL`, so a duplicate counts once and a rebuild replaces the
 * hour's row (ReplacingMergeTree versioned by the count). `timestamp` (whole seconds) bounds the hours
 * exactly, as both bounds are whole hours.
 */
export function rebuildSql(database: string, ranges: readonly HourRange[]): string {
  const table: SqlIdentifier = ident(database, EVENT_COUNTS_TABLE)
  const where = ranges
    .map(
      (r) =>
        // A DateTime holds no time before 1970: a range of a time before it starts at the epoch.
        sql`(account_id = ${r.accountId} AND timestamp >= toDateTime(${new Date(Math.max(0, r.fromMs))}, 'UTC') AND timestamp < toDateTime(${new Date(Math.max(0, r.toMs))}, 'UTC'))`,
    )
    .join(' OR ')
  return `INSERT INTO ${table.text} (account_id, environment, event, hour, events, first_ms, last_ms)
SELECT account_id, environment, event, ${HOUR_OF_TIMESTAMP} AS h, count(), min(timestamp_ms), max(timestamp_ms)
FROM ${ident(database, 'events').text} FINAL
WHERE ${where}
GROUP BY account_id, environment, event, h`
}
