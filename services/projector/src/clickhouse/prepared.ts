// Records whose rows are built already. The projector and the replay map each record to its
// TabSeparated rows as soon as it is decoded, keep the bytes outside the JS heap (RowArena, tsv.ts)
// and keep of the record only what the writer needs later: its H16 key (event_id, account_id,
// message_id, timestamp), the times that decide its partitions (timestamp, received_at) and where
// its rows are.
//
// Why (measured with 50,000 decoded records, bench/HISTORY.md "Replay"): a decoded record
// waits seconds for its insert, so its 20-odd objects (the record, its strings) survived young-
// generation collections and were copied and promoted; building its rows at insert time then
// allocated as much again. Mapping at decode time and keeping the bytes cut the CPU per record of
// decoding plus mapping by about a third.
import type { EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import {
  EVENT_COLUMNS,
  eventTraitValues,
  eventValues,
  IDENTIFY_COLUMNS,
  identifyTraitValues,
  identifyValues,
  RowMappingError,
  TRAIT_COLUMNS,
  type RowValues,
} from './rows.js'
import { RowArena, tsvLine } from './tsv.js'
import { invalidRecords, type InvalidRecord } from './write-error.js'

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
  /** With timestamp, what decides the partitions its rows touch (partition-groups.ts). */
  received_at: number
  /** The record's events or identifies row: bytes [rowStart, rowEnd) of rowChunk; null while not built (then `record` is set). */
  rowChunk: Buffer | null
  rowStart: number
  rowEnd: number
  /** Its user_traits rows, if any, one after the other in traitChunk. */
  traitChunk: Buffer | null
  traitStart: number
  traitEnd: number
  /** Set when it came from Kafka: a dead letter carries the original bytes and place. */
  origin: RecordOrigin | null
  /** Kept when asked (the live feed needs the whole record; a replay does not) and while the rows are not built. */
  record: R | null
}

/** Decoded records, not a batch: what writer.write() takes from tests and what the live feed is shown. */
export interface RecordsByKind {
  events: EventRecord[]
  identifies: IdentifyRecord[]
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
export function prepareEvent(
  r: EventRecord,
  arenas: RowArenas,
  origin: RecordOrigin | null,
  keepRecord: boolean,
): PreparedRecord<EventRecord> {
  return prepare(r, eventValues(r), EVENT_COLUMNS, eventTraitValues(r), arenas, origin, keepRecord)
}

export function prepareIdentify(
  r: IdentifyRecord,
  arenas: RowArenas,
  origin: RecordOrigin | null,
  keepRecord: boolean,
): PreparedRecord<IdentifyRecord> {
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
  const p = unbuilt(r, origin)
  appendRows(p, values, columns, traitValues, arenas)
  if (!keepRecord) p.record = null
  return p
}

/**
 * A record whose rows are built later (buildRows), after the H16 lookup: rows built at decode are
 * wasted on the records the lookup drops, every record of a replay over rows already stored.
 */
export function unbuilt<R extends EventRecord | IdentifyRecord>(r: R, origin: RecordOrigin | null): PreparedRecord<R> {
  return {
    event_id: r.event_id,
    account_id: r.account_id,
    message_id: r.message_id,
    timestamp: r.timestamp,
    received_at: r.received_at,
    rowChunk: null,
    rowStart: 0,
    rowEnd: 0,
    traitChunk: null,
    traitStart: 0,
    traitEnd: 0,
    origin,
    record: r,
  }
}

/** Builds the rows of an unbuilt event (a no-op for a built one); throws RowMappingError, nothing appended, if it cannot be mapped. */
export function buildEventRows(p: PreparedRecord<EventRecord>, arenas: RowArenas): void {
  if (p.rowChunk !== null) return
  const r = p.record!
  appendRows(p, eventValues(r), EVENT_COLUMNS, eventTraitValues(r), arenas)
}

export function buildIdentifyRows(p: PreparedRecord<IdentifyRecord>, arenas: RowArenas): void {
  if (p.rowChunk !== null) return
  const r = p.record!
  appendRows(p, identifyValues(r), IDENTIFY_COLUMNS, identifyTraitValues(r), arenas)
}

// Every line is checked (tsvLine throws) before any is appended: a record is whole or invalid.
function appendRows(
  p: PreparedRecord,
  values: RowValues,
  columns: readonly string[],
  traitValues: RowValues[],
  arenas: RowArenas,
): void {
  const line = tsvLine(values, columns, p.event_id)
  let traitLines = ''
  for (const v of traitValues) traitLines += tsvLine(v, TRAIT_COLUMNS, p.event_id)
  p.rowStart = arenas.rows.append(line)
  p.rowChunk = arenas.rows.chunk
  p.rowEnd = arenas.rows.pos
  if (traitLines !== '') {
    p.traitStart = arenas.traits.append(traitLines)
    p.traitChunk = arenas.traits.chunk
    p.traitEnd = arenas.traits.pos
  }
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

/**
 * The write's row step: builds the rows of the records kept by the H16 lookup that have none yet
 * (RowBuilding 'after-lookup', H69). If any cannot be mapped, the write stops here, before any
 * insert: an INVALID_RECORD error lists them (the rows of the others stay built for the retry
 * without them). `arenas` is asked only when a row is to be built.
 */
export function buildRows(batch: PreparedBatch, arenas: () => RowArenas): void {
  const unbuiltRecords =
    batch.events.some((p) => p.rowChunk === null) || batch.identifies.some((p) => p.rowChunk === null)
  if (!unbuiltRecords) return
  const invalid = buildMissingRows(batch, arenas())
  if (invalid.length > 0) throw invalidRecords(invalid)
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
