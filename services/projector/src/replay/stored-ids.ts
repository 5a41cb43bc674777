// The ids already stored in the live tables, loaded once into the replay's IdFilter, so that a replay
// into the live tables looks up only the records whose id may be stored (H16).
//
// Why (bench/HISTORY.md): a replay into the live tables looked up every record with a message_id. Each
// lookup of 50,000 ids cost ClickHouse more than the insert, half of it parsing the ids' literal text,
// and random ids hit most granules of retry_ids, so every lookup read about the whole table. Reading
// the ids once (`SELECT event_id FROM retry_ids`, 37 MB per million ids) costs one scan of that
// table, and then every id the filter has not seen skips the lookup.
//
// Why it is exact although the live projector (or another replay) may write while this one runs:
// a "not seen" id was not in retry_ids when the ids were read, and no earlier record of this replay
// had it. Another record with the same id that some writer stores afterwards is a client's retry of
// the same message: it has the same account and user_id, so the same record key and partition
// (records are keyed by account and user id, docs/design.md), and every writer handles a partition in offset
// order. If that retry lies before this record in the partition, this replay saw it first and the id
// is "maybe". If it lies after, the other writer handled this record first: either it stored this
// very record (an identical row, which the table collapses, A5), or it dropped it as a retry of an
// earlier record of the partition, which this replay also saw first. The one case outside this is a
// retry that landed in another partition than its first send because the topic's partition count
// changed in between; H16 across partitions is then as good as between two live projectors, which
// each look up only their own partitions' records.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, sql } from '../../../../schemas/clickhouse/sql.js'
import { TABLES } from '../clickhouse/writer.js'
import { IdFilter } from '../clickhouse/id-filter.js'

/**
 * Above this many stored ids the filter is not loaded. Reading the ids costs about 0.2 s of ClickHouse
 * time per million (and the filter 10 bits each); a replay of fewer records than a quarter of the
 * stored ids does few lookups, and a filter for more than 50 million ids would pass 64 MiB.
 */
export const MAX_STORED_IDS = 50_000_000
export const STORED_PER_REPLAYED = 4

export type StoredIdsResult = { filter: IdFilter; ids: number; ms: number } | { filter: undefined; reason: string }

/**
 * Loads the event_ids of retry_ids (every stored row with a message_id) into a filter sized for them
 * plus `replayRecords`, or says why not. A failure is not an error: the replay then looks up every
 * record, as without a filter.
 */
export async function loadStoredIds(
  ch: ClickHouseClient,
  database: string,
  replayRecords: number,
  now: () => number = Date.now,
): Promise<StoredIdsResult> {
  const t0 = now()
  const table = ident(database, TABLES.retryIds)
  const counted = await (
    await ch.query({ query: sql`SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' })
  ).json<{ n: string }>()
  const stored = Number(counted[0]?.n ?? 0)
  if (stored > MAX_STORED_IDS)
    return { filter: undefined, reason: `${stored} stored ids are more than ${MAX_STORED_IDS} to load` }
  if (stored > STORED_PER_REPLAYED * replayRecords)
    return {
      filter: undefined,
      reason: `${stored} stored ids are more than ${STORED_PER_REPLAYED} per record to replay`,
    }
  const filter = new IdFilter(stored + replayRecords)
  // wait_end_of_query: the server sends the result only once the query has finished, so an error
  // is an HTTP error and not text in the middle of a 200 body (which would look like ids and end
  // the list early: ids missing from the filter would skip their lookup).
  const { stream } = await ch.exec({
    query: sql`SELECT event_id FROM ${table} FORMAT TabSeparated`,
    clickhouse_settings: { wait_end_of_query: 1 },
  })
  const ids = await addLines(stream as AsyncIterable<Buffer>, filter)
  return { filter, ids, ms: now() - t0 }
}

/** Adds every line of a TabSeparated one-column String result to the filter; returns how many. */
export async function addLines(stream: AsyncIterable<Buffer>, filter: IdFilter): Promise<number> {
  let n = 0
  let rest: Buffer | null = null
  for await (const piece of stream) {
    const chunk: Buffer = rest ? Buffer.concat([rest, piece]) : piece
    let start = 0
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      addLine(filter, chunk, start, nl)
      n++
      start = nl + 1
    }
    rest = start < chunk.length ? chunk.subarray(start) : null
  }
  if (rest) throw new Error('the list of stored ids ended in the middle of a line')
  return n
}

function addLine(filter: IdFilter, buf: Buffer, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const b = buf[i]!
    // Not ASCII, or an escape: decode the text (the filter hashes UTF-16 code units).
    if (b >= 0x80 || b === 0x5c) {
      filter.checkAndAdd(unescapeTsv(buf.toString('utf8', start, end)))
      return
    }
  }
  filter.addAscii(buf, start, end)
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', "'": "'", '\\': '\\' }

/** A TabSeparated String value as ClickHouse writes it, back to its text. */
export function unescapeTsv(s: string): string {
  return s.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c)
}
