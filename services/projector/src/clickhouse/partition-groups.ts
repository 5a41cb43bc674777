// Cuts a table's rows into inserts that each touch at most MAX_PARTITIONS_PER_INSERT partitions (H26).
//
// Current ClickHouse refuses an INSERT whose block spans more than `max_partitions_per_insert_block`
// partitions (100 by default) with code 252, and the refusal is the same on every retry. Which
// partitions an events or identifies row touches (schemas/clickhouse/): the month of `timestamp` in
// events, identifies and retry_ids (its views copy `timestamp`), and for events also the month of
// `received_at` in usage_monthly (its view groups by it). user_traits and users are not partitioned.
// An insert's views write the same block, so a group bounded in both months is bounded everywhere.
//
// Event times go back to 1970 (H26), so one batch can span hundreds of months; nearly every batch
// spans one or two. The common case is found from the batch's earliest and latest times alone; rows
// are only sorted into groups when the months between those could be more than the limit.

/** ClickHouse's default `max_partitions_per_insert_block`. */
export const MAX_PARTITIONS_PER_INSERT = 100

/** What decides a row's partitions: its event time and its receipt time, in epoch ms. */
export interface Partitioned {
  timestamp: number
  received_at: number
}

/** Months since year 0 of an instant, in UTC: toYYYYMM's partition as one number. */
export function monthIndex(ms: number): number {
  const d = new Date(ms)
  return d.getUTCFullYear() * 12 + d.getUTCMonth()
}

/** The earliest and latest event and receipt times of some records, in epoch ms. */
export interface TimeRange {
  tLo: number
  tHi: number
  rLo: number
  rHi: number
}

export const emptyRange = (): TimeRange => ({ tLo: Infinity, tHi: -Infinity, rLo: Infinity, rHi: -Infinity })

/** Widens `range` to the record's times. */
export function extendRange(range: TimeRange, r: Partitioned): void {
  if (r.timestamp < range.tLo) range.tLo = r.timestamp
  if (r.timestamp > range.tHi) range.tHi = r.timestamp
  if (r.received_at < range.rLo) range.rLo = r.received_at
  if (r.received_at > range.rHi) range.rHi = r.received_at
}

/**
 * The records in groups of at most `limit` distinct months of `timestamp` and at most `limit` of
 * `received_at`, every record in exactly one group. One group, the array itself, when the batch's
 * time range cannot span more. `range` is the records' own, when the caller has it: the writer
 * gathers it while it reads the records for the insert's body (insertBody): a separate pass would
 * read every record of a large batch from memory once more.
 */
export function partitionGroups<R extends Partitioned>(
  records: R[],
  limit = MAX_PARTITIONS_PER_INSERT,
  range?: TimeRange,
): R[][] {
  if (records.length === 0) return []
  if (range === undefined) {
    range = emptyRange()
    for (const r of records) extendRange(range, r)
  }
  if (monthIndex(range.tHi) - monthIndex(range.tLo) < limit && monthIndex(range.rHi) - monthIndex(range.rLo) < limit)
    return [records]
  return groupByMonths(records, limit)
}

/** The general case: sorted by event month (then receipt month), cut where either count would pass the limit. */
function groupByMonths<R extends Partitioned>(records: R[], limit: number): R[][] {
  const keyed = records.map((r) => ({ r, t: monthIndex(r.timestamp), rec: monthIndex(r.received_at) }))
  keyed.sort((a, b) => a.t - b.t || a.rec - b.rec)
  const groups: R[][] = []
  let group: R[] = []
  let eventMonths = 0
  let lastEventMonth = NaN
  let receiptMonths = new Set<number>()
  for (const k of keyed) {
    const newEventMonth = k.t !== lastEventMonth
    const newReceiptMonth = !receiptMonths.has(k.rec)
    if ((newEventMonth && eventMonths === limit) || (newReceiptMonth && receiptMonths.size === limit)) {
      groups.push(group)
      group = []
      eventMonths = 0
      receiptMonths = new Set()
    }
    if (newEventMonth || group.length === 0) eventMonths++
    lastEventMonth = k.t
    receiptMonths.add(k.rec)
    group.push(k.r)
  }
  groups.push(group)
  return groups
}
