// Writes one batch of records into ClickHouse: one TabSeparated insert per table (tsv.ts), or per
// group of partitions when the batch spans more months than one insert may touch (H26).
// Retrying is the caller's job; every failure is a ClickHouseWriteError that says
// whether a retry can help (H27). Writes are idempotent (A5), so retrying a batch that
// partly landed is safe. The retries of a message_id are dropped first (deduplication.ts, H16);
// the rows come from prepared.ts.

import { Readable } from 'node:stream'
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import { assertIdentifier } from '../../../../schemas/clickhouse/sql.js'
import { isTooManyPartitionsPerInsert, serverErrorCode } from '../../../../schemas/clickhouse/server-error.js'
import { EVENT_COLUMNS, IDENTIFY_COLUMNS, RowMappingError, TRAIT_COLUMNS } from './rows.js'
import {
  buildEventRows,
  buildIdentifyRows,
  insertBody,
  newArenas,
  unbuilt,
  type PreparedBatch,
  type PreparedRecord,
  type RowArenas,
} from './prepared.js'
import type { IdFilter } from './id-filter.js'
import { Deduplication, droppedBetween, type DroppedDuplicate } from './deduplication.js'
import { TABLES } from './tables.js'
import { emptyRange, MAX_PARTITIONS_PER_INSERT, partitionGroups } from './partition-groups.js'
import { AppError } from '../../../shared/src/errors.js'

export { TABLES } from './tables.js'
export { retryCandidates, lookupChunks, RETRY_WINDOW_MS, type DroppedDuplicate } from './deduplication.js'

export type ClickHouseWriteErrorCode =
  | 'INVALID_RECORD' // a record cannot be mapped to a row: send it to the DLQ
  | 'INSERT_REJECTED' // the server refused the data itself (parse, type, an insert's partitions): not retriable
  | 'INSERT_FAILED' // network, overload, timeout, missing table...: retry with backoff

export interface InvalidRecord {
  kind: 'event' | 'identify'
  event_id: string
  reason: string
}

export class ClickHouseWriteError extends AppError {
  readonly code: ClickHouseWriteErrorCode
  readonly table: string | undefined
  readonly serverCode: number | undefined
  /** For INVALID_RECORD: the records that cannot be written. Nothing was inserted. */
  readonly invalid: InvalidRecord[]

  constructor(
    code: ClickHouseWriteErrorCode,
    message: string,
    opts: { retriable: boolean; table?: string; serverCode?: number; invalid?: InvalidRecord[]; cause?: unknown },
  ) {
    super(message, { retriable: opts.retriable, cause: opts.cause })
    this.code = code
    this.table = opts.table
    this.serverCode = opts.serverCode
    this.invalid = opts.invalid ?? []
  }
}

// Server codes that mean the data itself is unacceptable: retrying cannot help, so the records at
// fault go to the DLQ and the rest is written (H27). Names as current ClickHouse's system.errors gives
// them. Code 252 is one of them only for the partitions of one insert (isTooManyPartitionsPerInsert).
const DATA_ERRORS = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE (an unpaired surrogate in a JSON string)
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  130, // CANNOT_READ_ARRAY_FROM_TEXT
  131, // TOO_LARGE_STRING_SIZE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  376, // CANNOT_PARSE_UUID
  441, // CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING
  467, // CANNOT_PARSE_BOOL
  632, // UNEXPECTED_DATA_AFTER_PARSED_VALUE
  675, // CANNOT_PARSE_IPV4
  676, // CANNOT_PARSE_IPV6
  691, // UNKNOWN_ELEMENT_OF_ENUM (18.16 says LOGICAL_ERROR, which is not the data's)
])

export interface RecordsByKind {
  events: EventRecord[]
  identifies: IdentifyRecord[]
}

export interface WriteStats {
  events: number
  identifies: number
  traits: number
}

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

/**
 * Maps a batch of records to prepared records (their rows built), collecting every record that
 * cannot be mapped. Records are kept in the prepared ones (a dead letter of a write can then name them).
 */
export function prepareBatch(
  batch: RecordsByKind,
  arenas: RowArenas = newArenas(64 * 1024),
): { prepared: PreparedBatch; invalid: InvalidRecord[] } {
  const all: PreparedBatch = {
    events: batch.events.map((r) => unbuilt(r, null)),
    identifies: batch.identifies.map((r) => unbuilt(r, null)),
  }
  const invalid = buildMissingRows(all, arenas)
  if (invalid.length === 0) return { prepared: all, invalid }
  return {
    prepared: {
      events: all.events.filter((p) => p.rowChunk !== null),
      identifies: all.identifies.filter((p) => p.rowChunk !== null),
    },
    invalid,
  }
}

/** Builds the rows of the records that have none yet; those that cannot be mapped are returned and stay unbuilt. */
function buildMissingRows(batch: PreparedBatch, arenas: RowArenas): InvalidRecord[] {
  const invalid: InvalidRecord[] = []
  const build = <R extends PreparedRecord>(
    kind: InvalidRecord['kind'],
    records: R[],
    fn: (p: R, arenas: RowArenas) => void,
  ) => {
    for (const p of records) {
      if (p.rowChunk !== null) continue
      try {
        fn(p, arenas)
      } catch (err) {
        if (!(err instanceof RowMappingError)) throw err
        invalid.push({ kind, event_id: p.event_id, reason: err.message })
      }
    }
  }
  build('event', batch.events, buildEventRows)
  build('identify', batch.identifies, buildIdentifyRows)
  return invalid
}

function invalidRecords(invalid: InvalidRecord[]): ClickHouseWriteError {
  return new ClickHouseWriteError(
    'INVALID_RECORD',
    `${invalid.length} record(s) cannot be written: ` +
      invalid.map((r) => `${r.kind} ${r.event_id}: ${r.reason}`).join('; '),
    { retriable: false, invalid },
  )
}

export class ClickHouseWriter {
  private readonly database: string
  private readonly deduplication: Deduplication
  // Where rows built at write time go (records prepared without rows, prepared.ts).
  private arenas: RowArenas | null = null
  // Lowered when the server refuses an insert for its partitions (a `max_partitions_per_insert_block`
  // below ClickHouse's default), so the next batches are cut to what it accepts at once.
  private maxPartitions = MAX_PARTITIONS_PER_INSERT

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
    )
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
    const kept = await this.deduplication.dropRetries(batch)
    this.buildRows(kept)
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
    await this.insert(TABLES.userTraits, TRAIT_COLUMNS, traits.chunks)
    await this.insertByPartitions(TABLES.events, EVENT_COLUMNS, kept.events, this.maxPartitions)
    await this.insertByPartitions(TABLES.identifies, IDENTIFY_COLUMNS, kept.identifies, this.maxPartitions)
    if (this.opts.onDuplicates && kept !== batch) this.opts.onDuplicates(droppedBetween(batch, kept))
    return { events: kept.events.length, identifies: kept.identifies.length, traits: countLines(traits.chunks) }
  }

  private buildRows(batch: PreparedBatch): void {
    const unbuiltRecords =
      batch.events.some((p) => p.rowChunk === null) || batch.identifies.some((p) => p.rowChunk === null)
    if (!unbuiltRecords) return
    const invalid = buildMissingRows(batch, (this.arenas ??= newArenas()))
    if (invalid.length > 0) throw invalidRecords(invalid)
  }

  /**
   * The records' rows in inserts of at most `limit` partitions each (H26). A server that allows
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
        await this.insert(table, columns, group === records ? body.chunks : insertBody(group, 'rows').chunks)
      } catch (err) {
        if (!(limit > 1 && err instanceof ClickHouseWriteError && isTooManyPartitionsPerInsert(err.cause))) throw err
        this.maxPartitions = Math.min(this.maxPartitions, Math.floor(limit / 2))
        await this.insertByPartitions(table, columns, group, Math.floor(limit / 2))
      }
    }
  }

  private async insert(table: string, columns: readonly string[], chunks: Buffer[]): Promise<void> {
    if (chunks.length === 0) return
    try {
      await this.client.insert({
        table: `${this.database}.${table}`,
        values: Readable.from(chunks, { objectMode: false }),
        format: 'TabSeparated',
        columns: columns as [string, ...string[]],
        ...(this.opts.clustered ? { clickhouse_settings: CLUSTER_INSERT_SETTINGS } : {}),
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

export function classify(cause: unknown, table?: string): ClickHouseWriteError {
  const serverCode = serverErrorCode(cause)
  const message = cause instanceof Error ? cause.message : String(cause)
  const where = table ? ` into ${table}` : ''
  if (serverCode !== undefined && (DATA_ERRORS.has(serverCode) || isTooManyPartitionsPerInsert(cause))) {
    return new ClickHouseWriteError('INSERT_REJECTED', `insert${where} rejected (code ${serverCode}): ${message}`, {
      retriable: false,
      table,
      serverCode,
      cause,
    })
  }
  // Programmer errors are never retried (STYLE.md).
  const programmer = cause instanceof TypeError || cause instanceof RangeError || cause instanceof SyntaxError
  return new ClickHouseWriteError('INSERT_FAILED', `insert${where} failed: ${message}`, {
    retriable: !programmer,
    table,
    serverCode,
    cause,
  })
}
