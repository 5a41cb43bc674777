// What the recount (U25) runs over the hours it counts, in one place for the projector's recount
// (services/projector/src/rollup/recount.ts), the dashboard bench's fill and the tests: per group of
// months (U28, the ranges cut once), the hours' event counts (U19), their property counts (U26), then the
// sums of their days from those hourly rows (U29), each table's statements after the one it reads, and
// the persons' counts of their days (U33), from the events.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { type HourRange, monthRangeGroups, rebuildStatements, runGroups } from './event-counts.js'
import { propertyRebuildStatements } from './property-counts.js'
import { propertyDayStatements } from './property-days.js'
import { personDayStatements } from './person-days.js'

/** The statements recounting one month group's ranges in every counts table, in order. */
export const recountStatements =
  (database: string) =>
  (group: readonly HourRange[]): string[] => [
    ...rebuildStatements(database, group),
    ...propertyRebuildStatements(database, group),
    ...propertyDayStatements(database, group),
    ...personDayStatements(database, group),
  ]

/** Recounts the ranges (hours of accounts) in every counts table; `onGroup` after each group of months. */
export async function recountRanges(
  ch: Pick<ClickHouseClient, 'command'>,
  database: string,
  ranges: readonly HourRange[],
  settings?: ClickHouseSettings,
  onGroup?: (done: number, total: number) => void,
): Promise<void> {
  await runGroups(ch, monthRangeGroups(ranges), recountStatements(database), settings, onGroup)
}
