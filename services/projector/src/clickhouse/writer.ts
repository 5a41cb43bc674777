// Writes one batch of records into ClickHouse: one TabSeparated insert per table (tsv.ts), or per
// group of partitions when the batch spans more months than one insert may touch (H26).
// Retrying is the caller's job; every failure is a ClickHouseWriteError that says
// whether a retry can help (H27). Writes are idempotent (A5), so retrying a batch that
// partly landed is safe.

import { Readable } from 'node:stream'
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import { assertIdentifier, ident, literal, raw, sql } from '../../../../schemas/clickhouse/sql.js'
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
import { emptyRange, MAX_PARTITIONS_PER_INSERT, partitionGroups } from './partition-groups.js'
import { AppError } from '../../../shared/src/errors.js'

export const TABLES = {
  events: 'events',
  identifies: 'identifies',
  userTraits: 'user_traits',
  /** Written by materialized views, never by the writer: the ids the H16 lookup reads (006_retry_ids.sql). */
  retryIds: 'retry_ids',
} as const

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

/** How far apart a message's first write and its retry may be for the retry to be recognised (H16). */
export const RETRY_WINDOW_MS = 48 * 3600 * 1000
// IN sets for the lookup (bench/HISTORY.md, measured on 18.16 against 1M rows): a tuple of N literals
// is parsed and evaluated literal by literal, so the lookup cost more CPU than the insert. One array
// literal is parsed in one go, and `IN (SELECT arrayJoin([...]))` builds the set from it: about a
// third of the cost, scan included. The query text of 20,000 ids (~0.9 MB) needs a larger
// max_query_size than the default 256 KiB. The primary key index is used with such a set as with a tuple.
// Random ids hit most granules of retry_ids, so a lookup reads about the whole table whatever its
// size: one lookup of a whole 50,000-record insert instead of three of 20,000 cost ClickHouse
// 6-30% less CPU in a replay into the live tables (bench/HISTORY.md). A lookup is also cut
// by its text, so ids of any length stay below max_query_size.
const RETRY_LOOKUP_CHUNK = 50_000
const RETRY_LOOKUP_CHARS = 6 * 1024 * 1024
const RETRY_LOOKUP_SETTINGS = { max_query_size: String(16 * 1024 * 1024) }
const idSet = (values: string[]) => raw(`(SELECT arrayJoin([${values.map((v) => literal(v)).join(', ')}]))`)

export interface WriteBatch {
  events: EventRecord[]
  identifies: IdentifyRecord[]
}

export interface WriteStats {
  events: number
  identifies: number
  traits: number
}

/** A record the writer did not insert because its event_id is stored already or earlier in the batch. */
export interface DroppedDuplicate {
  kind: 'event' | 'identify'
  event_id: string
  account_id: string
  message_id: string | null
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
  batch: WriteBatch,
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

/**
 * Which records of a batch are dropped as repeats of an earlier record of the batch (same event_id,
 * both with a message_id), and which must be looked up in ClickHouse (the first of each event_id).
 *
 * With a filter of the ids that may be stored (a replay's, id-filter.ts), an id it answers
 * "not seen" for was never added: it is neither stored nor earlier in this batch (every record is
 * added as it is checked), so it needs neither the lookup nor the batch's earlier ids. Only the
 * ids it answers "maybe" for (stored, earlier in the batch, or about 1% false positives) are
 * followed through the batch. Ids are added here, before the insert: an insert that fails may
 * still have stored rows, so the filter must hold every id that may be stored. (Tracking every id
 * of a 50,000-record batch in a Map was 4.5% of a fresh replay's CPU, bench/HISTORY.md.)
 */
export function retryCandidates<R extends { event_id: string; message_id: string | null }>(
  records: R[],
  seen?: IdFilter,
): { drop: Set<R>; lookup: R[] } {
  const drop = new Set<R>()
  const lookup: R[] = []
  let maybe: Set<string> | undefined
  let wasSeen: boolean[] | undefined
  if (seen) {
    maybe = new Set<string>()
    wasSeen = new Array<boolean>(records.length)
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!
      if (r.message_id && (wasSeen[i] = seen.checkAndAdd(r.event_id))) maybe.add(r.event_id)
    }
    if (maybe.size === 0) return { drop, lookup }
  }
  const first = new Set<string>()
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    if (!r.message_id || (maybe && !maybe.has(r.event_id))) continue
    if (first.has(r.event_id)) drop.add(r)
    else {
      first.add(r.event_id)
      // The first of its id in the batch: if the filter had not seen it, it is not stored.
      if (!wasSeen || wasSeen[i]) lookup.push(r)
    }
  }
  return { drop, lookup }
}

/** Cuts the ids to look up into lookups of at most RETRY_LOOKUP_CHUNK ids and about RETRY_LOOKUP_CHARS of text. */
export function lookupChunks<R extends { event_id: string; account_id: string }>(records: R[]): R[][] {
  const chunks: R[][] = []
  let from = 0
  let chars = 0
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    // A literal is at most twice its text (every character escaped), plus quotes and a separator.
    const c = 2 * (r.event_id.length + r.account_id.length) + 8
    if (i > from && (i - from >= RETRY_LOOKUP_CHUNK || chars + c > RETRY_LOOKUP_CHARS)) {
      chunks.push(records.slice(from, i))
      from = i
      chars = 0
    }
    chars += c
  }
  if (from < records.length) chunks.push(from === 0 ? records : records.slice(from))
  return chunks
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
  }

  /**
   * Inserts the batch. If any record cannot be mapped, nothing is inserted and an
   * INVALID_RECORD error lists them, so the caller can dead-letter those and write
   * the rest.
   */
  async write(batch: WriteBatch): Promise<WriteStats> {
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
    const kept = await this.dropRetries(batch)
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
   * H16/A5: a client's retry of a `message_id` is a second record with the same event_id but,
   * when the client sent no timestamp (or clock-skew correction moved it), another timestamp, so
   * another sort key, which ReplacingMergeTree would keep as a second row even under FINAL. The
   * first write wins: such records are dropped when their event_id is already stored within
   * RETRY_WINDOW_MS of their timestamp (looked up in retry_ids, which materialized views fill from
   * the stored rows) or appears earlier in the batch. Records without a message_id are
   * byte-identical on redelivery and need no lookup. A replay of records already stored simply writes nothing new.
   */
  async dropRetries(batch: PreparedBatch): Promise<PreparedBatch> {
    const [events, identifies] = await Promise.all([
      this.withoutStored(TABLES.events, batch.events),
      this.withoutStored(TABLES.identifies, batch.identifies),
    ])
    return events === batch.events && identifies === batch.identifies ? batch : { events, identifies }
  }

  private async withoutStored<
    R extends { event_id: string; account_id: string; message_id: string | null; timestamp: number },
  >(table: typeof TABLES.events | typeof TABLES.identifies, records: R[]): Promise<R[]> {
    const { drop, lookup: unique } = retryCandidates(records, this.opts.storedIds)
    if (drop.size === 0 && unique.length === 0) return records
    for (const chunk of lookupChunks(unique)) {
      let lo = Infinity
      let hi = -Infinity
      for (const r of chunk) {
        lo = Math.min(lo, r.timestamp)
        hi = Math.max(hi, r.timestamp)
      }
      // retry_ids holds (source, account_id, event_id, timestamp) of every stored row with a message_id,
      // sorted by event_id within an account: the lookup reads about ids x granule rows, not every
      // row of the accounts in the window as a lookup in the table itself did (006_retry_ids.sql).
      // toDateTime of a negative number wraps to 2106 on 18.16: the window starts at the epoch at the earliest.
      const query = sql`SELECT DISTINCT event_id FROM ${ident(this.database, TABLES.retryIds)}
WHERE source = ${table}
  AND account_id IN ${idSet([...new Set(chunk.map((r) => r.account_id))])}
  AND event_id IN ${idSet(chunk.map((r) => r.event_id))}
  AND timestamp >= toDateTime(${Math.max(0, Math.floor((lo - RETRY_WINDOW_MS) / 1000))})
  AND timestamp <= toDateTime(${Math.ceil((hi + RETRY_WINDOW_MS) / 1000)})`
      let stored: Array<{ event_id: string }>
      try {
        stored = await (
          await this.client.query({ query, format: 'JSONEachRow', clickhouse_settings: RETRY_LOOKUP_SETTINGS })
        ).json<{ event_id: string }>()
      } catch (cause) {
        throw classify(cause, table)
      }
      const ids = new Set(stored.map((x) => x.event_id))
      for (const r of chunk) if (ids.has(r.event_id)) drop.add(r)
    }
    return drop.size === 0 ? records : records.filter((r) => !drop.has(r))
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

function droppedBetween(batch: PreparedBatch, kept: PreparedBatch): DroppedDuplicate[] {
  const out: DroppedDuplicate[] = []
  const keptEvents = new Set(kept.events)
  const keptIdentifies = new Set(kept.identifies)
  const one = (kind: DroppedDuplicate['kind'], r: PreparedRecord) =>
    out.push({ kind, event_id: r.event_id, account_id: r.account_id, message_id: r.message_id })
  for (const r of batch.events) if (!keptEvents.has(r)) one('event', r)
  for (const r of batch.identifies) if (!keptIdentifies.has(r)) one('identify', r)
  return out
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
