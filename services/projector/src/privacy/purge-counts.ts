// An erasure (A12) and the counts tables (U26): property_counts_hourly counts property values, which may
// name the person, per hour together with everyone's events, so no row is the person's alone and none can
// be found by a user_id. Before the person's events are deleted, the hours they fall in are marked dirty
// (readers then read those hours from the events, exact at every moment, U25) and those hours' rows of
// both counts tables are deleted (a recount never lowers a count, U19), so the recount counts the hours
// again from the events left. Both tables, so a breakdown's '' (the hour's count less the key's) stays exact.
import type { ClickHouseClient } from '@clickhouse/client'
import { raw, sql } from '../../../../schemas/clickhouse/sql.js'
import { EVENT_COUNTS_TABLE, HOUR_OF_TIMESTAMP } from '../../../shared/src/rollup/event-counts.js'
import { insertMarks } from '../../../shared/src/rollup/dirty-hours.js'
import { PROPERTY_COUNTS_TABLE } from '../../../shared/src/rollup/property-counts.js'
import type { MutationPlaces } from '../clickhouse/mutation-places.js'

/** Marks the person's hours dirty and deletes their counted rows; returns how many hours. */
export async function forgetCountedHours(
  ch: ClickHouseClient,
  database: string,
  person: { account_id: string; user_id: string },
  where: MutationPlaces,
): Promise<number> {
  const r = await ch.query({
    query: sql`SELECT DISTINCT toUInt32(${raw(HOUR_OF_TIMESTAMP)}) AS h FROM ${where.read(database, 'events')}
WHERE account_id = ${person.account_id} AND user_id = ${person.user_id} ORDER BY h`,
    format: 'JSONEachRow',
  })
  const hours = (await r.json<{ h: string | number }>()).map((x) => Number(x.h))
  if (hours.length === 0) return 0
  const marks = hours.map((h) => ({ accountId: person.account_id, hourMs: h * 1000 }))
  await insertMarks(ch, database, marks, { markedMs: Date.now(), dirty: true })
  const inHours = raw(`toUInt32(hour) IN (${hours.join(', ')})`)
  for (const table of [PROPERTY_COUNTS_TABLE, EVENT_COUNTS_TABLE])
    await ch.command({
      query: sql`${where.alter(table)} DELETE WHERE account_id = ${person.account_id} AND ${inHours}`,
    })
  return hours.length
}
