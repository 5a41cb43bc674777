// The hourly event counts (decision U19 of docs/design.md, schemas/clickhouse/012_event_counts_hourly.sql):
// the hour ranges to recount, and the statement that recomputes those hours from `events FINAL`. One
// source for the projector's writer (after each batch, replays included, A1) and the dashboard bench's
// fill; the dashboard reads the table for whole hours and the events for the rest.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { ident, raw, sql, type SqlIdentifier } from '../../../../schemas/clickhouse/sql.js'
import { monthGroups, monthIndex, nextMonthStart } from '../month-groups.js'

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

/** The hour (UTC) of an event row, as a DateTime; integer arithmetic, valid on 18.16 (A9). */
export const HOUR_OF_TIMESTAMP = "toDateTime(intDiv(toUInt32(timestamp), 3600) * 3600, 'UTC')"

/** Accounts named in one statement: its text stays far below ClickHouse's max_query_size (256 KiB). */
export const ACCOUNTS_PER_STATEMENT = 1000

/**
 * Recomputes the ranges' rows from `events FINAL`, so a duplicate counts once and a rebuild replaces the
 * hour's row (ReplacingMergeTree versioned by the count). `timestamp` (whole seconds) bounds the hours
 * exactly, as both bounds are whole hours.
 */
export function rebuildStatements(database: string, ranges: readonly HourRange[]): string[] {
  const table: SqlIdentifier = ident(database, EVENT_COUNTS_TABLE)
  return rangeConditions(ranges).map((where) => statement(table, database, where))
}

/**
 * The WHERE conditions of a recount's statements over the ranges, one a statement, on `column` (a
 * DateTime; `timestamp` for the events, `hour` for the hourly rows). Ranges of one span share a clause
 * (`account_id IN (...)`: a batch of many accounts mostly touches the same hour), and each condition
 * names at most ACCOUNTS_PER_STATEMENT accounts. One builder for every counts table (U19, U26, U29).
 */
export function rangeConditions(ranges: readonly HourRange[], column = 'timestamp'): string[] {
  const bySpan = new Map<string, { fromMs: number; toMs: number; accounts: string[] }>()
  for (const r of ranges) {
    // A DateTime holds no time before 1970: a range of a time before it starts at the epoch.
    const [fromMs, toMs] = [Math.max(0, r.fromMs), Math.max(0, r.toMs)]
    const key = `${fromMs}-${toMs}`
    ;(bySpan.get(key) ?? bySpan.set(key, { fromMs, toMs, accounts: [] }).get(key)!).accounts.push(r.accountId)
  }
  const col = raw(column)
  const clauses: Array<{ accounts: number; text: string }> = []
  for (const span of bySpan.values())
    for (let i = 0; i < span.accounts.length; i += ACCOUNTS_PER_STATEMENT) {
      const accounts = span.accounts.slice(i, i + ACCOUNTS_PER_STATEMENT)
      const list = accounts.map((a) => sql`${a}`).join(', ')
      const text = sql`(account_id IN (${raw(list)}) AND ${col} >= toDateTime(${new Date(span.fromMs)}, 'UTC') AND ${col} < toDateTime(${new Date(span.toMs)}, 'UTC'))`
      clauses.push({ accounts: accounts.length, text })
    }
  const conditions: string[] = []
  let group: string[] = []
  let named = 0
  const flush = () => {
    if (group.length > 0) conditions.push(group.join(' OR '))
    group = []
    named = 0
  }
  for (const c of clauses) {
    if (named + c.accounts > ACCOUNTS_PER_STATEMENT) flush()
    group.push(c.text)
    named += c.accounts
  }
  flush()
  return conditions
}

function statement(table: SqlIdentifier, database: string, where: string): string {
  return `INSERT INTO ${table.text} (account_id, environment, event, hour, events, first_ms, last_ms)
SELECT account_id, environment, event, ${HOUR_OF_TIMESTAMP} AS h, count(), min(timestamp_ms), max(timestamp_ms)
FROM ${ident(database, 'events').text} FINAL
WHERE ${where}
GROUP BY account_id, environment, event, h`
}

/**
 * The ranges cut where a month begins and grouped by at most MONTHS_PER_INSERT months (U28): the table
 * is partitioned by month, so a recount of a long history is several inserts, one group's statements each.
 */
export const monthRangeGroups = (ranges: readonly HourRange[]): HourRange[][] =>
  monthGroups(splitAtMonths(ranges), [(r) => monthIndex(r.fromMs)])

/** Runs each group's statements one after the other. */
export async function runGroups(
  ch: Pick<ClickHouseClient, 'command'>,
  groups: readonly (readonly HourRange[])[],
  statementsOf: (group: readonly HourRange[]) => string[],
  settings?: ClickHouseSettings,
  /** Called after each group: how many are done, of how many. */
  onGroup?: (done: number, total: number) => void,
): Promise<void> {
  for (const [i, group] of groups.entries()) {
    for (const query of statementsOf(group))
      await ch.command({ query, ...(settings ? { clickhouse_settings: settings } : {}) })
    onGroup?.(i + 1, groups.length)
  }
}

/** Runs rebuildStatements one after the other (the bench's fill, the tests; the recount runs runGroups itself). */
export async function rebuildCounts(
  ch: Pick<ClickHouseClient, 'command'>,
  database: string,
  ranges: readonly HourRange[],
  settings?: ClickHouseSettings,
): Promise<void> {
  await runGroups(ch, monthRangeGroups(ranges), (g) => rebuildStatements(database, g), settings)
}

/** The ranges cut where a UTC month begins, so that each lies in one month (one partition). */
export function splitAtMonths(ranges: readonly HourRange[]): HourRange[] {
  const out: HourRange[] = []
  for (const r of ranges) {
    let from = r.fromMs
    while (from < r.toMs) {
      const to = Math.min(r.toMs, from < 0 ? 0 : nextMonthStart(from))
      out.push({ accountId: r.accountId, fromMs: from, toMs: to })
      from = to
    }
  }
  return out
}
