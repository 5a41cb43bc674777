// Writes one batch of records into ClickHouse, one step per file, in this order (docs/design.md,
// "Projector: one record, file by file"): the retries of a message_id are dropped (deduplication.ts,
// H16), the rows not built at decode are built (prepared.ts, H69), the rows are inserted, traits first,
// in groups of partitions (partition-groups.ts, H26). Retrying is the caller's job; every failure is a
// ClickHouseWriteError (write-error.ts) that says whether a retry can help (H27). Writes are
// idempotent (A5), so retrying a batch that partly landed is safe.

import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { assertIdentifier } from '../../../../schemas/clickhouse/sql.js'
import {
  buildRows,
  newArenas,
  prepareBatch,
  type PreparedBatch,
  type RecordsByKind,
  type RowArenas,
} from './prepared.js'
import type { IdFilter } from './id-filter.js'
import { Deduplication, type DroppedDuplicate } from './deduplication.js'
import { PartitionedInserts, type InsertedCounts } from './partition-groups.js'
import { classify, invalidRecords } from './write-error.js'

export { TABLES } from './tables.js'
export { retryCandidates, lookupChunks, RETRY_WINDOW_MS, type DroppedDuplicate } from './deduplication.js'
export { prepareBatch, type RecordsByKind } from './prepared.js'
export { CLUSTER_INSERT_SETTINGS } from './partition-groups.js'
export {
  ClickHouseWriteError,
  classify,
  type ClickHouseWriteErrorCode,
  type InvalidRecord,
} from './write-error.js'

export type WriteStats = InsertedCounts

export interface WriterOptions {
  /** Told of the duplicates of each successful write, for the metric and the debug log (H16). */
  onDuplicates?: (dropped: DroppedDuplicate[]) => void
  /**
   * Every event_id that may be stored in the target tables, as a Bloom filter (id-filter.ts): ids it
   * has not seen skip the H16 lookup. A replay's: loaded with the ids stored when it began
   * (replay/stored-ids.ts says why other writers cannot make that wrong); the writer adds what it writes.
   */
  storedIds?: IdFilter
  /** The database is on a cluster (CLICKHOUSE_CLUSTER): inserts wait for two replicas (H45). */
  clustered?: boolean
  /** HOURLY_COUNTS: the write's last step marks the hours its events fall in (rollup/hour-marks.ts, U25). */
  hourMarks?: { markDirty(events: PreparedBatch['events']): Promise<void> }
}

export class ClickHouseWriter {
  private readonly database: string
  private readonly deduplication: Deduplication
  private readonly inserts: PartitionedInserts
  // Where rows built at write time go (records prepared without rows, prepared.ts).
  private arenas: RowArenas | null = null

  constructor(
    private readonly client: ClickHouseClient,
    database: string,
    private readonly opts: WriterOptions = {},
  ) {
    this.database = assertIdentifier(database)
    this.deduplication = new Deduplication(
      this.database,
      (query, table, settings) => this.query(query, table, settings),
      opts.storedIds,
      opts.onDuplicates !== undefined,
    )
    this.inserts = new PartitionedInserts(client, this.database, opts.clustered === true)
  }

  private async query(query: string, table: string, settings: ClickHouseSettings) {
    try {
      return await (await this.client.query({ query, format: 'JSONEachRow', clickhouse_settings: settings })).json<{
        event_id: string
      }>()
    } catch (cause) {
      throw classify(cause, table)
    }
  }

  /**
   * Inserts the batch. If any record cannot be mapped, nothing is inserted and an
   * INVALID_RECORD error lists them, so the caller can dead-letter those and write
   * the rest.
   */
  async write(batch: RecordsByKind): Promise<WriteStats> {
    const { prepared, invalid } = prepareBatch(batch)
    if (invalid.length > 0) throw invalidRecords(invalid)
    return this.writePrepared(prepared)
  }

  /**
   * Inserts prepared records (prepared.ts), less the retries H16 drops. Rows not built yet are
   * built now, for the records kept; if any of those cannot be mapped, nothing is inserted and an
   * INVALID_RECORD error lists them (their rows stay built for the retry without them).
   */
  async writePrepared(batch: PreparedBatch): Promise<WriteStats> {
    const deduplicated = await this.deduplication.dropRetries(batch)
    buildRows(deduplicated.kept, () => (this.arenas ??= newArenas()))
    const stats = await this.inserts.insert(deduplicated.kept)
    // Inside the write's retries, after the events are stored (U25): the hours of every event of the
    // batch, the retries H16 dropped included, since a write that stored its events and failed before
    // its marks is retried without them, and their hours must still be marked.
    await this.opts.hourMarks?.markDirty(batch.events)
    // Told only once the write succeeded: a failed write is retried, and would tell them twice.
    if (this.opts.onDuplicates && deduplicated.dropped.length > 0) this.opts.onDuplicates(deduplicated.dropped)
    return stats
  }
}
