// Records whose rows are built already. The projector and the replay map each record to its
// TabSeparated rows as soon as it is decoded, keep the bytes outside the JS heap (RowArena, tsv.ts)
// and keep of the record only what the writer needs later: its H16 key (event_id, account_id,
// message_id, timestamp) and where its rows are.
//
// Why (issue 10, measured with 50,000 decoded records, BENCHMARKS.md "Replay"): a decoded record
// waits seconds for its insert, so its 20-odd objects (the record, its strings) survived young-
// generation collections and were copied and promoted; building its rows at insert time then
// allocated as much again. Mapping at decode time and keeping the bytes cut the CPU per record of
// decoding plus mapping by about a third.
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import { EVENT_COLUMNS, eventTraitValues, eventValues, IDENTIFY_COLUMNS, identifyTraitValues, identifyValues, TRAIT_COLUMNS, type RowValues } from './rows.js'
import { RowArena, tsvLine } from './tsv.js'

/** Where a decoded record came from, so a dead letter names its topic, partition and offset. */
export interface RecordOrigin {
  topic: string
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
}

/** A record mapped to its rows: its H16 key, its rows' bytes, and optionally the record itself. */
export interface PreparedRecord<R extends EventRecord | IdentifyRecord = EventRecord | IdentifyRecord> {
  event_id: string
  account_id: string
  message_id: string | null
  timestamp: number
  /** The record's events or identifies row: bytes [rowStart, rowEnd) of rowChunk. */
  rowChunk: Buffer
  rowStart: number
  rowEnd: number
  /** Its user_traits rows, if any, one after the other in traitChunk. */
  traitChunk: Buffer | null
  traitStart: number
  traitEnd: number
  /** Set when it came from Kafka: a dead letter carries the original bytes and place. */
  origin: RecordOrigin | null
  /** Kept only when asked (the live feed needs the whole record; a replay does not). */
  record: R | null
}

export interface PreparedBatch {
  events: PreparedRecord<EventRecord>[]
  identifies: PreparedRecord<IdentifyRecord>[]
}

/** The arenas the rows of prepared records are written to: one for events and identifies rows, one for trait rows. */
export interface RowArenas {
  rows: RowArena
  traits: RowArena
}

export function newArenas(chunkBytes?: number): RowArenas {
  return { rows: new RowArena(chunkBytes), traits: new RowArena(chunkBytes) }
}

/**
 * Maps a record to its rows and appends them to the arenas. Throws RowMappingError (nothing
 * appended) when any of its rows cannot be written: a record is whole or invalid.
 */
export function prepareEvent(r: EventRecord, arenas: RowArenas, origin: RecordOrigin | null, keepRecord: boolean): PreparedRecord<EventRecord> {
  return prepare(r, eventValues(r), EVENT_COLUMNS, eventTraitValues(r), arenas, origin, keepRecord)
}

export function prepareIdentify(r: IdentifyRecord, arenas: RowArenas, origin: RecordOrigin | null, keepRecord: boolean): PreparedRecord<IdentifyRecord> {
  return prepare(r, identifyValues(r), IDENTIFY_COLUMNS, identifyTraitValues(r), arenas, origin, keepRecord)
}

function prepare<R extends EventRecord | IdentifyRecord>(
  r: R,
  values: RowValues,
  columns: readonly string[],
  traitValues: RowValues[],
  arenas: RowArenas,
  origin: RecordOrigin | null,
  keepRecord: boolean,
): PreparedRecord<R> {
  const line = tsvLine(values, columns, r.event_id)
  let traitLines = ''
  for (const v of traitValues) traitLines += tsvLine(v, TRAIT_COLUMNS, r.event_id)
  const row = arenas.rows.append(line)
  const traits = traitLines === '' ? null : arenas.traits.append(traitLines)
  return {
    event_id: r.event_id,
    account_id: r.account_id,
    message_id: r.message_id,
    timestamp: r.timestamp,
    rowChunk: arenas.rows.chunk!,
    rowStart: row,
    rowEnd: arenas.rows.pos,
    traitChunk: traits === null ? null : arenas.traits.chunk,
    traitStart: traits ?? 0,
    traitEnd: traits === null ? 0 : arenas.traits.pos,
    origin,
    record: keepRecord ? r : null,
  }
}

/**
 * The body of an insert: the rows of `records` (their main rows, or their trait rows), in order,
 * as views of the arenas' chunks; rows that lie back to back in a chunk share one view.
 */
export function insertBody(records: readonly PreparedRecord[], which: 'rows' | 'traits'): { chunks: Buffer[]; rows: number } {
  const chunks: Buffer[] = []
  let rows = 0
  let chunk: Buffer | null = null
  let start = 0
  let end = 0
  for (const p of records) {
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
