// H16 (A5): the retries of a `message_id` the writer drops before it inserts. A client's retry is a
// second record with the same event_id but maybe another timestamp, so another sort key, which
// ReplacingMergeTree would keep as a second row even under FINAL: the first write wins.
import type { ClickHouseSettings } from '@clickhouse/client'
import { ident, literal, raw, sql } from '../../../../schemas/clickhouse/sql.js'
import type { IdFilter } from './id-filter.js'
import type { PreparedBatch, PreparedRecord } from './prepared.js'
import { TABLES } from './tables.js'

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

/** A record the writer did not insert because its event_id is stored already or earlier in the batch. */
export interface DroppedDuplicate {
  kind: 'event' | 'identify'
  event_id: string
  account_id: string
  message_id: string | null
}

/** Runs a lookup query and gives its rows; its failure is the caller's to classify (writer.ts). */
export type RetryLookup = (
  query: string,
  table: string,
  settings: ClickHouseSettings,
) => Promise<Array<{ event_id: string }>>

/** What the H16 step leaves to insert, and the duplicates it dropped (when the writer reports them). */
export interface Deduplicated {
  kept: PreparedBatch
  /** In batch order, events first; empty unless reported (the constructor's `reportDropped`). */
  dropped: DroppedDuplicate[]
}

export class Deduplication {
  constructor(
    private readonly database: string,
    private readonly lookup: RetryLookup,
    /** The ids that may be stored in the target tables (a replay's, id-filter.ts): the others skip the lookup. */
    private readonly storedIds?: IdFilter,
    /** Name the records dropped (the writer's onDuplicates, H16); off, nothing is built for them. */
    private readonly reportDropped = false,
  ) {}

  /**
   * H16/A5: a client's retry of a `message_id` is a second record with the same event_id but,
   * when the client sent no timestamp (or clock-skew correction moved it), another timestamp, so
   * another sort key, which ReplacingMergeTree would keep as a second row even under FINAL. The
   * first write wins: such records are dropped when their event_id is already stored within
   * RETRY_WINDOW_MS of their timestamp (looked up in retry_ids, which materialized views fill from
   * the stored rows) or appears earlier in the batch. Records without a message_id are
   * byte-identical on redelivery and need no lookup. A replay of records already stored simply writes nothing new.
   */
  async dropRetries(batch: PreparedBatch): Promise<Deduplicated> {
    // The two tables' lookups run at once.
    const [events, identifies] = await Promise.all(KINDS.map((of) => this.withoutStored(of, batch)))
    const dropped = events!.dropped.length === 0 ? identifies!.dropped : [...events!.dropped, ...identifies!.dropped]
    if (events!.kept === batch.events && identifies!.kept === batch.identifies) return { kept: batch, dropped }
    const kept = {
      events: events!.kept as PreparedBatch['events'],
      identifies: identifies!.kept as PreparedBatch['identifies'],
    }
    return { kept, dropped }
  }

  /** The records of one table that are no retry of a stored or earlier record, and the others (when reported). */
  private async withoutStored(
    of: Kind,
    batch: PreparedBatch,
  ): Promise<{ kept: PreparedRecord[]; dropped: DroppedDuplicate[] }> {
    const records: PreparedRecord[] = batch[of.records]
    const { drop, lookup: unique } = retryCandidates(records, this.storedIds)
    if (drop.size === 0 && unique.length === 0) return { kept: records, dropped: [] }
    const table = of.table
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
      const stored = await this.lookup(query, table, RETRY_LOOKUP_SETTINGS)
      const ids = new Set(stored.map((x) => x.event_id))
      for (const r of chunk) if (ids.has(r.event_id)) drop.add(r)
    }
    if (drop.size === 0) return { kept: records, dropped: [] }
    const kept: PreparedRecord[] = []
    const dropped: DroppedDuplicate[] = []
    for (const r of records) {
      if (!drop.has(r)) kept.push(r)
      else if (this.reportDropped)
        dropped.push({ kind: of.kind, event_id: r.event_id, account_id: r.account_id, message_id: r.message_id })
    }
    return { kept, dropped }
  }
}

/** A table the writer inserts records into, the records of the batch it takes, and their kind. */
interface Kind {
  table: typeof TABLES.events | typeof TABLES.identifies
  records: keyof PreparedBatch
  kind: DroppedDuplicate['kind']
}
const KINDS: readonly Kind[] = [
  { table: TABLES.events, records: 'events', kind: 'event' },
  { table: TABLES.identifies, records: 'identifies', kind: 'identify' },
]

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
