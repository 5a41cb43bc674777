// The daily person counts (decision U33 of docs/design.md, schemas/clickhouse/019_person_counts_daily.sql):
// each person's events per UTC day, what a Trends breakdown by a trait reads for the whole days of its
// period that hold no dirty hour. A day's rows are counted again from `events FINAL` whenever the recount
// counts one of its hours (U25), before that hour is marked counted, as property_counts_daily's are summed
// (U29): an hour with events is dirty until then, so a day none of whose hours is dirty is complete.
// Versioned by the count: a person's events of a day only grow, and the later of two concurrent recounts
// reads what the other read. A day's count is read from the events, not from hourly rows: a table per
// (hour, person) would hold about a row per event.
import { ident } from '../../../../schemas/clickhouse/sql.js'
import { type HourRange, rangeConditions } from './event-counts.js'
import { dayRanges } from './property-days.js'

export const PERSON_DAYS_TABLE = 'person_counts_daily'

/** The day (UTC) of an event row, as a DateTime; integer arithmetic, valid on 18.16 (A10). */
const DAY_OF_TIMESTAMP = "toDateTime(intDiv(toUInt32(timestamp), 86400) * 86400, 'UTC')"

/**
 * A person (U33): two hashes of the id by different functions, the first of the environment too, joined on
 * together, 128 bits, as uniqExact tells strings apart.
 */
export const PERSON_SQL = 'cityHash64(toString(environment), user_id)'
export const PERSON_CHECK_SQL = 'sipHash64(user_id)'

/** The SELECT counting the events matching `where` per person and day (the recount's and migration 019's backfill). */
export function personDaysSelect(database: string, where: string): string {
  return `SELECT account_id, environment, ${DAY_OF_TIMESTAMP} AS d, ${PERSON_SQL}, ${PERSON_CHECK_SQL}, user_id, count() AS events
FROM ${ident(database, 'events').text} FINAL
WHERE ${where}
GROUP BY account_id, environment, d, user_id`
}

/**
 * Counts again the days of the ranges (hours of one month group: a day never crosses a month) from the
 * events; `timestamp` (whole seconds) bounds whole days exactly.
 */
export function personDayStatements(database: string, ranges: readonly HourRange[]): string[] {
  const table = ident(database, PERSON_DAYS_TABLE).text
  return rangeConditions(dayRanges(ranges), 'timestamp').map(
    (where) =>
      `INSERT INTO ${table} (account_id, environment, day, person, person_check, user_id, events)\n${personDaysSelect(database, where)}`,
  )
}
