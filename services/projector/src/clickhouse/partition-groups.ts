// The write's insert step (docs/design.md, "Projector: one record, file by file"): the kept records' rows
// go to ClickHouse as TabSeparated inserts (tsv.ts), the trait rows first, then the events and identifies
// rows, each table's in inserts that touch at most MONTHS_PER_INSERT months (H26, U28: the limit and its
// reason are in shared/src/month-groups.ts). Grouping, the inserts' bodies and the insert loop are in
// this one file, in that order of use.
//
// Which partitions an events or identifies row touches (schemas/clickhouse/): the month of `timestamp` in
// events, identifies and retry_ids (its views copy `timestamp`), the month of its week in person_weeks,
// and for events also the month of `received_at` in usage_monthly_sharded (its view groups by it). user_traits
// and users are not partitioned. An insert's views write the same block, so a group bounded in both
// months is bounded everywhere.
//
// Event times go back to 1970 (H26), so one batch can span hundreds of months; nearly every batch
// spans one or two. The common case is found from the batch's earliest and latest times alone; rows
// are only sorted into groups when the months between those could be more than the limit.
import { Readable } from 'node:stream'
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { isTooManyPartitionsPerInsert } from '../../../../schemas/clickhouse/server-error.js'
import { monthGroups, monthIndex, MONTHS_PER_INSERT } from '../../../shared/src/month-groups.js'
import type { PreparedBatch, PreparedRecord } from './prepared.js'
import { EVENT_COLUMNS, IDENTIFY_COLUMNS, TRAIT_COLUMNS } from './rows.js'
import { TABLES } from './tables.js'
import { ClickHouseWriteError, classify } from './write-error.js'

/** What decides a row's partitions: its event time and its receipt time, in epoch ms. */
export interface Partitioned {
  timestamp: number
  received_at: number
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
 * time range cannot span more. `range` is the records' own, when the caller has it: the insert loop
 * gathers it while it reads the records for the insert's body (insertBody): a separate pass would
 * read every record of a large batch from memory once more.
 */
export function partitionGroups<R extends Partitioned>(
  records: R[],
  limit = MONTHS_PER_INSERT,
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
  return monthGroups(keyed, [(k) => k.t, (k) => k.rec], limit).map((g) => g.map((k) => k.r))
}

/**
 * The body of an insert: the rows of `records` (their main rows, or their trait rows), in order,
 * as views of the arenas' chunks; rows that lie back to back in a chunk share one view. The
 * records' rows must be built. `range`, when given, is widened to the records' times (the
 * partitions the rows touch) in the same pass.
 */
export function insertBody(
  records: readonly PreparedRecord[],
  which: 'rows' | 'traits',
  range?: TimeRange,
): { chunks: Buffer[]; rows: number } {
  const chunks: Buffer[] = []
  let rows = 0
  let chunk: Buffer | null = null
  let start = 0
  let end = 0
  for (const p of records) {
    if (p.rowChunk === null) throw new Error(`the rows of ${p.event_id} are not built`)
    if (range) extendRange(range, p)
    const c = which === 'rows' ? p.rowChunk : p.traitChunk
    if (c === null) continue
    const s = which === 'rows' ? p.rowStart : p.traitStart
    const e = which === 'rows' ? p.rowEnd : p.traitEnd
    rows++
    if (c === chunk && s === end) {
      end = e
      continue
    }
    if (chunk !== null) chunks.push(chunk.subarray(start, end))
    chunk = c
    start = s
    end = e
  }
  if (chunk !== null) chunks.push(chunk.subarray(start, end))
  return { chunks, rows }
}

/**
 * Inserts into a cluster's Distributed tables (docs/design.md H45, docs/scaling.md point 5): the insert
 * returns only once the shards have the rows (insert_distributed_sync, not queued on the server that took
 * it) and two replicas of each shard have them (insert_quorum), so the projector commits its offsets only
 * for rows that survive the loss of a server. With a replica down the quorum insert fails (code 285, or
 * 319/159 when the quorum times out) and the batch is retried, offsets uncommitted. The timeouts sit
 * below the client's request timeout (60 s, shared/src/clickhouse.ts), so a stuck insert ends as the
 * server's typed error, not a dropped connection: the quorum 30 s, the distributed insert 45 s. Both
 * names are accepted by 18.16 and 26.9 (where insert_distributed_sync is distributed_foreground_insert).
 */
export const CLUSTER_INSERT_SETTINGS: ClickHouseSettings = {
  insert_distributed_sync: 1,
  insert_distributed_timeout: '45',
  insert_quorum: '2',
  insert_quorum_timeout: 30_000,
}

/** What one write inserted: records kept, and trait rows (a record has any number). */
export interface InsertedCounts {
  events: number
  identifies: number
  traits: number
}

/**
 * The insert loop of one database. Retrying is the caller's job; every failure is a
 * ClickHouseWriteError that says whether a retry can help (H27). Writes are idempotent (A5), so
 * retrying a batch that partly landed is safe.
 */
export class PartitionedInserts {
  // Lowered when the server refuses an insert for its partitions (a `max_partitions_per_insert_block`
  // below ClickHouse's default), so the next batches are cut to what it accepts at once.
  private maxPartitions = MONTHS_PER_INSERT

  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
    /** The database is on a cluster (CLICKHOUSE_CLUSTER): inserts wait for two replicas (H45). */
    private readonly clustered: boolean,
  ) {}

  /** Inserts the rows of the records, which must be built (prepared.ts): traits, then events, then identifies. */
  async insert(kept: PreparedBatch): Promise<InsertedCounts> {
    const all =
      kept.identifies.length === 0
        ? kept.events
        : kept.events.length === 0
          ? kept.identifies
          : [...kept.events, ...kept.identifies]
    const traits = insertBody(all, 'traits')
    // Trait rows go first. A record whose events/identifies row is stored is dropped from a retry
    // (dropRetries), trait rows included, so a partial write that stored the record's row but not
    // its trait rows would lose them for good (H16). Trait rows are idempotent (same key, same
    // version), so writing them again on a retry is harmless.
    await this.insertChunks(TABLES.userTraits, TRAIT_COLUMNS, traits.chunks)
    await this.insertByPartitions(TABLES.events, EVENT_COLUMNS, kept.events, this.maxPartitions)
    await this.insertByPartitions(TABLES.identifies, IDENTIFY_COLUMNS, kept.identifies, this.maxPartitions)
    return { events: kept.events.length, identifies: kept.identifies.length, traits: countLines(traits.chunks) }
  }

  /**
   * The records' rows in inserts of at most `limit` months each (H26, U28). A server that allows
   * fewer refuses one (code 252): that group is cut again with half the limit, down to one month,
   * which any server takes; the rows it refused are written again, byte for byte (A5).
   */
  private async insertByPartitions(
    table: string,
    columns: readonly string[],
    records: PreparedRecord[],
    limit: number,
  ): Promise<void> {
    const range = emptyRange()
    const body = insertBody(records, 'rows', range)
    for (const group of partitionGroups(records, limit, range)) {
      try {
        await this.insertChunks(table, columns, group === records ? body.chunks : insertBody(group, 'rows').chunks)
      } catch (err) {
        if (!(limit > 1 && err instanceof ClickHouseWriteError && isTooManyPartitionsPerInsert(err.cause))) throw err
        this.maxPartitions = Math.min(this.maxPartitions, Math.floor(limit / 2))
        await this.insertByPartitions(table, columns, group, Math.floor(limit / 2))
      }
    }
  }

  private async insertChunks(table: string, columns: readonly string[], chunks: Buffer[]): Promise<void> {
    if (chunks.length === 0) return
    try {
      await this.client.insert({
        table: `${this.database}.${table}`,
        values: Readable.from(chunks, { objectMode: false }),
        format: 'TabSeparated',
        columns: columns as [string, ...string[]],
        ...(this.clustered ? { clickhouse_settings: CLUSTER_INSERT_SETTINGS } : {}),
      })
    } catch (cause) {
      throw classify(cause, table)
    }
  }
}

function countLines(chunks: Buffer[]): number {
  let n = 0
  for (const c of chunks) for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) n++
  return n
}
