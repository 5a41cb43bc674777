// An erasure (A12) and the counts tables (U26): property_counts_hourly counts property values, which may
// name the person, per hour together with everyone's events, so no row is the person's alone and none can
// be found by a user_id. The hours the person's events fall in are read before the events are deleted;
// once the events are gone, those hours' rows of both counts tables are deleted (a recount never lowers a
// count, U19) and, after that deletion is done, the hours are marked dirty: readers then read them from
// the events, exact at every moment (U25), and the recount counts them again from the events left. In
// that order, a recount running meanwhile counts either an hour still counted (before the mark, nothing
// to do) or the events without the person (after the deletion): it can neither keep the person's values
// nor have its rows deleted behind it. Both tables, so a breakdown's '' (the hour's count less the key's)
// stays exact. The days of those hours go from property_counts_daily too (U29), in the same step: the
// recount of the dirty hours sums each day again from the hours left.
import type { ClickHouseClient } from '@clickhouse/client'
import { raw, sql } from '../../../../schemas/clickhouse/sql.js'
import { HOUR_OF_TIMESTAMP } from '../../../shared/src/rollup/event-counts.js'
import { insertMarks } from '../../../shared/src/rollup/dirty-hours.js'
import { COUNTS_TABLES } from '../../../shared/src/rollup/counts-tables.js'
import type { MutationPlaces } from '../clickhouse/mutation-places.js'

/** The hours (UTC, epoch seconds) the person's events fall in. */
export async function personHours(
  ch: ClickHouseClient,
  database: string,
  person: { account_id: string; user_id: string },
  where: MutationPlaces,
): Promise<number[]> {
  const r = await ch.query({
    query: sql`SELECT DISTINCT toUInt32(${raw(HOUR_OF_TIMESTAMP)}) AS h FROM ${where.read(database, 'events')}
WHERE account_id = ${person.account_id} AND user_id = ${person.user_id} ORDER BY h`,
    format: 'JSONEachRow',
  })
  return (await r.json<{ h: string | number }>()).map((x) => Number(x.h))
}

/** Deletes the hours' counted rows, waits until that is done, then marks the hours dirty. */
export async function forgetCountedHours(
  ch: ClickHouseClient,
  database: string,
  accountId: string,
  hours: readonly number[],
  where: MutationPlaces,
  settled: () => Promise<void>,
): Promise<void> {
  if (hours.length === 0) return
  for (const c of COUNTS_TABLES) {
    // The buckets (hours, days) the hours fall in.
    const buckets = [...new Set(hours.map((h) => h - (h % c.seconds)))]
    const rows = raw(`toUInt32(${c.column}) IN (${buckets.join(', ')})`)
    await ch.command({ query: sql`${where.alter(c.table)} DELETE WHERE account_id = ${accountId} AND ${rows}` })
  }
  await settled()
  const marks = hours.map((h) => ({ accountId, hourMs: h * 1000 }))
  await insertMarks(ch, database, marks, { markedMs: Date.now(), dirty: true })
}
