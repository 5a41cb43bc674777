// The one rule for cutting an insert's rows by month (docs/design.md U28, H26): the projector's inserts
// (events, identifies: clickhouse/partition-groups.ts) and the hourly counts' (marks, recounts:
// rollup/) go to tables partitioned by month (`toYYYYMM`), and current ClickHouse refuses an insert
// whose block touches more than `max_partitions_per_insert_block` partitions (100 by default) with code
// 252, the same refusal on every retry. A materialized view writes the block it is fed to its own
// table, whose partitions count against the same limit.

/** ClickHouse's default `max_partitions_per_insert_block`. */
const MAX_PARTITIONS_PER_INSERT = 100

/**
 * Months of one time (event time, receipt time, hour) one insert may touch: half the server's limit,
 * because a view may file a row under the month before its own. person_weeks (migration 013, U23) is
 * partitioned by the month of the row's week, which begins on a Monday, in the month before when the
 * month does not begin on one: n months of events touch up to 2n months of weeks (n + 1 when
 * consecutive), so a group of 100 consecutive months would be refused by the view (101) and written twice.
 */
export const MONTHS_PER_INSERT = MAX_PARTITIONS_PER_INSERT / 2

/** Months since year 0 of an instant, in UTC: toYYYYMM's partition as one number. A DateTime holds no time before 1970 (H26). */
export function monthIndex(ms: number): number {
  const d = new Date(Math.max(0, ms))
  return d.getUTCFullYear() * 12 + d.getUTCMonth()
}

/** The first instant (epoch ms) of the month after the one `ms` lies in. */
export function nextMonthStart(ms: number): number {
  const next = monthIndex(ms) + 1
  return Date.UTC(Math.floor(next / 12), next % 12, 1)
}

/**
 * The items in their order, in groups of at most `limit` distinct months by each of `monthsOf` (each
 * gives an item's month, monthIndex): a group is cut where one more month of any of them would pass
 * the limit. Sorted items give groups of whole months; every item is in exactly one group.
 */
export function monthGroups<T>(
  items: readonly T[],
  monthsOf: ReadonlyArray<(x: T) => number>,
  limit = MONTHS_PER_INSERT,
): T[][] {
  const groups: T[][] = []
  let group: T[] = []
  let seen = monthsOf.map(() => new Set<number>())
  for (const x of items) {
    const months = monthsOf.map((of) => of(x))
    if (group.length > 0 && months.some((m, i) => !seen[i]!.has(m) && seen[i]!.size === limit)) {
      groups.push(group)
      group = []
      seen = monthsOf.map(() => new Set<number>())
    }
    months.forEach((m, i) => seen[i]!.add(m))
    group.push(x)
  }
  if (group.length > 0) groups.push(group)
  return groups
}
