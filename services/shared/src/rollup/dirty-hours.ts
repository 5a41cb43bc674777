// Which hours of event_counts_hourly are not counted yet (decision U25 of docs/design.md, migration 015).
// The projector marks an (account, hour) dirty after writing events into it, and recounts a dirty hour
// once it is closed; Trends and Definitions read the dirty hours from `events` and the rest from the
// counts, so an answer is exact whether or not the recount has run. One source for the marks' SQL: the
// projector's step after the write, its recount, and the dashboard's queries.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { ident, raw, sql } from '../../../../schemas/clickhouse/sql.js'
import { monthGroups, monthIndex } from '../month-groups.js'
import { HOUR_MS, hourFloor, type HourRange } from './event-counts.js'

export const DIRTY_HOURS_TABLE = 'event_counts_dirty'

/**
 * An hour is closed this long after it ends: it is recounted only then (U25), so the events that arrive
 * just after the hour (a late flush from a browser) join the count without a second recount.
 */
export const CLOSE_GRACE_MS = 5 * 60_000

/** Past every hour a DateTime holds that ingest accepts (2096): the bound of "all of an account's hours". */
export const END_OF_HOURS_MS = 4_000_000_000_000

/**
 * A process marks an hour again only this long after it last marked it, and the recount counts an hour
 * only once its latest mark is this old (U25): a write whose mark was skipped is then always older than
 * the start of any recount that counts its hour, so that recount sees it. A catch-up over closed hours
 * marks each hour once a minute, not once a batch.
 */
export const MARK_SETTLE_MS = 60_000

/** Hours starting before this are closed at `nowMs`. */
export const closedBefore = (nowMs: number) => hourFloor(nowMs - CLOSE_GRACE_MS)

/** One (account, hour) of event_counts_hourly; hourMs on an hour. */
export interface HourMark {
  accountId: string
  hourMs: number
}

/**
 * Inserts marks, versioned by `markedMs`: dirty after a write (its time taken after the events are stored),
 * counted after a recount (its time taken before the recount read the events), so a write the recount did
 * not see always leaves its hour dirty. As JSON rows, the hour in epoch seconds: no expression per row for
 * the server to evaluate, and none to format here (a catch-up marks as many hours as it writes events).
 */
export async function insertMarks(
  ch: Pick<ClickHouseClient, 'insert'>,
  database: string,
  marks: readonly HourMark[],
  at: { markedMs: number; dirty: boolean },
  settings?: ClickHouseSettings,
): Promise<void> {
  const dirty = at.dirty ? 1 : 0
  // The table is partitioned by month: a batch or a recount of a long history is several inserts (U28).
  for (const group of monthGroups(marks, [(m) => monthIndex(m.hourMs)]))
    await ch.insert({
      table: ident(database, DIRTY_HOURS_TABLE).text,
      columns: ['account_id', 'hour', 'marked_ms', 'dirty'],
      values: group.map((m) => ({
        account_id: m.accountId,
        hour: Math.max(0, Math.floor(m.hourMs / 1000)),
        marked_ms: at.markedMs,
        dirty,
      })),
      format: 'JSONEachRow',
      ...(settings ? { clickhouse_settings: settings } : {}),
    })
}

/** An hour's latest mark is dirty; of two marks of one millisecond, the dirty one (to read the events is always exact). */
const LATEST_IS_DIRTY = 'max(marked_ms * 2 + dirty) % 2 = 1'

/** One account's dirty hours in [fromMs, toMs): rows of `h`, the hour in epoch seconds. */
export function dirtyHoursSql(database: string, accountId: string, fromMs: number, toMs: number): string {
  return sql`SELECT toUInt32(hour) AS h FROM ${ident(database, DIRTY_HOURS_TABLE)}
WHERE account_id = ${accountId} AND hour >= toDateTime(${new Date(Math.max(0, fromMs))}, 'UTC') AND hour < toDateTime(${new Date(Math.max(0, toMs))}, 'UTC')
GROUP BY hour HAVING ${raw(LATEST_IS_DIRTY)}
ORDER BY hour`
}

/**
 * Every account's dirty hours closed at `nowMs` whose latest mark is `settleMs` old: what the recount
 * counts. 0 only when every writer of the database has finished (a replay's fresh database).
 */
export function closedDirtySql(database: string, nowMs: number, settleMs = MARK_SETTLE_MS): string {
  return sql`SELECT account_id, toUInt32(hour) AS h FROM ${ident(database, DIRTY_HOURS_TABLE)}
WHERE hour < toDateTime(${new Date(Math.max(0, closedBefore(nowMs)))}, 'UTC')
GROUP BY account_id, hour HAVING ${raw(LATEST_IS_DIRTY)} AND max(marked_ms) <= ${nowMs - settleMs}
ORDER BY account_id, hour`
}

/** The account's dirty hours in [fromMs, toMs), as ms on the hour, ascending. */
export async function dirtyHours(
  ch: Pick<ClickHouseClient, 'query'>,
  database: string,
  accountId: string,
  fromMs: number,
  toMs: number,
): Promise<number[]> {
  const r = await ch.query({ query: dirtyHoursSql(database, accountId, fromMs, toMs), format: 'JSONEachRow' })
  return (await r.json<{ h: string | number }>()).map((x) => Number(x.h) * 1000)
}

/** Marks as the ranges rebuildCounts recounts: consecutive hours of an account joined. */
export function markRanges(marks: readonly HourMark[]): HourRange[] {
  const sorted = [...marks].sort((a, b) =>
    a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.hourMs - b.hourMs,
  )
  const ranges: HourRange[] = []
  for (const m of sorted) {
    const last = ranges.at(-1)
    if (last && last.accountId === m.accountId && last.toMs >= m.hourMs)
      last.toMs = Math.max(last.toMs, m.hourMs + HOUR_MS)
    else ranges.push({ accountId: m.accountId, fromMs: m.hourMs, toMs: m.hourMs + HOUR_MS })
  }
  return ranges
}

/**
 * The events of the given hours (ascending, ms on the hour), consecutive hours joined: ranges of
 * `timestamp`, the sort key, so the server reads only those hours. '0' when there are none.
 */
export function hoursCondition(hoursMs: readonly number[]): string {
  return spansCondition(markRanges(hoursMs.map((hourMs) => ({ accountId: '', hourMs }))))
}

/** A DateTime column (a sort key's) inside one of the spans [fromMs, toMs), as ranges of it; '0' when there are none. */
export function spansCondition(spans: readonly { fromMs: number; toMs: number }[], column = 'timestamp'): string {
  if (spans.length === 0) return '0'
  const at = (ms: number) => sql`toDateTime(${new Date(Math.max(0, ms))}, 'UTC')`
  return `(${spans.map((r) => `(${column} >= ${at(r.fromMs)} AND ${column} < ${at(r.toMs)})`).join(' OR ')})`
}

/** The table's rows of the given hours left out ('1' when there are none): those are read from the events. */
export function notTheseHours(hoursMs: readonly number[]): string {
  if (hoursMs.length === 0) return '1'
  return `toUInt32(hour) NOT IN (${hoursMs.map((ms) => String(Math.floor(ms / 1000))).join(', ')})`
}
