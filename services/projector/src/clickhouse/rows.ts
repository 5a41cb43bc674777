// Pure mapping from log records to ClickHouse insert rows (written as TabSeparated, tsv.ts).
// Column meanings: schemas/clickhouse/README.md. Times: each instant is written twice,
// as DateTime('UTC') text ('YYYY-MM-DD hh:mm:ss', whole seconds) and as epoch ms
// (Int64), since 18.16 has no DateTime64 (A6). Absent optional times are 0, absent
// optional strings are ''.

import type { Environment, EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import { formatDateTime } from '../../../../schemas/clickhouse/sql.js'
import { AppError } from '../../../shared/src/errors.js'
import { isWellFormed } from '../../../shared/src/well-formed.js'

/** Columns events and identifies share: identity and the times of H13 (see commonColumns). */
interface CommonRow {
  event_id: string
  account_id: string
  environment: Environment
  key_id: string
  user_id: string
  timestamp: string
  timestamp_ms: number
  original_timestamp_ms: number
  received_at: string
  received_at_ms: number
  sent_at_ms: number
  timestamp_flagged: 0 | 1
}

export interface EventRow extends CommonRow {
  event: string
  properties: string
  context: string
  ip: string
  user_agent: string
  message_id: string
  user_email: string
  user_traits: string
  anonymous_id: string
}

export interface IdentifyRow extends CommonRow {
  email: string
  traits: string
  context: string
  ip: string
  user_agent: string
  message_id: string
  anonymous_id: string
}

export interface TraitRow {
  account_id: string
  environment: Environment
  user_id: string
  trait_key: string
  /** JSON text of the trait's value. */
  value: string
  set_at: string
  set_at_ms: number
  source_event_id: string
}

/** A record that can never be written as it stands (a retry will not help). */
export class RowMappingError extends AppError {
  readonly code = 'INVALID_RECORD'
  constructor(
    message: string,
    readonly eventId: string,
  ) {
    super(message, { retriable: false })
  }
}

// DateTime is UInt32 seconds, but 18.16 reads text only up to 2105-12-31 23:59:59 (its date
// table ends there): a later text is silently stored as 0 or wrapped, so it is refused here.
export const MAX_MS = Date.UTC(2105, 11, 31, 23, 59, 59, 999)

function instant(ms: number, field: string, eventId: string): { text: string; ms: number } {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_MS) {
    throw new RowMappingError(`${field} ${ms} is outside the DateTime range`, eventId)
  }
  return { text: dateTimeText(ms), ms }
}

// formatDateTime builds a Date and pads six parts, and a row has two or three instants: it showed
// in the replay profile (bench/HISTORY.md). The day part is cached (a replay's records fall on a few
// thousand days at most; the cache is cleared past DAY_CACHE_MAX) and the time part is arithmetic.
// Numbers are not an option: current servers refuse a short number as DateTime text.
const DAY_CACHE_MAX = 10_000
const dayPrefix = new Map<number, string>()

/** The `YYYY-MM-DD ` text of a day since the epoch, cached. */
function dayText(day: number): string {
  let prefix = dayPrefix.get(day)
  if (prefix === undefined) {
    if (dayPrefix.size >= DAY_CACHE_MAX) dayPrefix.clear()
    prefix = formatDateTime(day * 86_400_000).slice(0, 11)
    dayPrefix.set(day, prefix)
  }
  return prefix
}

/** The DateTime text of `ms` (`YYYY-MM-DD hh:mm:ss`, within DateTime's range) as bytes at `o`; the offset
 *  after them. The event transcoder writes its rows' times this way (no string a time), and dateTimeText is
 *  these bytes as text. */
export function writeDateTime(dst: Buffer, o: number, ms: number): number {
  const sec = Math.floor(ms / 1000)
  const day = Math.floor(sec / 86_400)
  // ASCII: each UTF-16 unit of the day's text is its byte.
  const prefix = dayText(day)
  for (let i = 0; i < prefix.length; i++) dst[o + i] = prefix.charCodeAt(i)
  o += prefix.length
  let s = sec - day * 86_400
  const h = Math.floor(s / 3600)
  s -= h * 3600
  const m = Math.floor(s / 60)
  s -= m * 60
  o = twoDigits(dst, o, h)
  dst[o++] = 58 // :
  o = twoDigits(dst, o, m)
  dst[o++] = 58
  return twoDigits(dst, o, s)
}

function twoDigits(dst: Buffer, o: number, n: number): number {
  const tens = Math.floor(n / 10)
  dst[o] = 48 + tens
  dst[o + 1] = 48 + n - tens * 10
  return o + 2
}

/** Room for one DateTime text (19 bytes). */
const DATE_TIME = Buffer.alloc(32)

export function dateTimeText(ms: number): string {
  return DATE_TIME.toString('latin1', 0, writeDateTime(DATE_TIME, 0, ms))
}

function optionalMs(ms: number | null, field: string, eventId: string): number {
  if (ms === null || ms === undefined) return 0
  if (!Number.isSafeInteger(ms)) throw new RowMappingError(`${field} ${ms} is not an integer`, eventId)
  return ms
}

function environment(env: string, eventId: string): Environment {
  if (env !== 'live' && env !== 'test') throw new RowMappingError(`unknown environment ${env}`, eventId)
  return env
}

/** Parses a traits JSON text into an object; null, '' and non-objects give {}. */
function parseTraits(json: string | null | undefined, eventId: string): Record<string, unknown> {
  if (json === null || json === undefined || json.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    throw new RowMappingError('traits are not valid JSON', eventId)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {}
  return parsed as Record<string, unknown>
}

/** `email` from the record, else a string `email` trait (H10), else ''. */
function profileEmail(email: string | null, traitsJson: string | null, eventId: string): string {
  return email ? email : traitEmail(traitsJson, eventId)
}

/** A string `email` trait of the traits JSON (H10), else ''. */
export function traitEmail(traitsJson: string | null, eventId: string): string {
  const fromTraits = parseTraits(traitsJson, eventId).email
  return typeof fromTraits === 'string' ? fromTraits : ''
}

/** A row's values in the order of its table's column list below: what the TSV line is built from. */
export type RowValues = Array<string | number>

// Column lists, in the order of the values the functions below return. The writer builds each
// row's TabSeparated line straight from the values (tsv.ts): a row object per record, and
// Object.values of it, cost about a fifth of a replay's CPU per record (bench/HISTORY.md).
const COMMON_COLUMNS = [
  'event_id',
  'account_id',
  'environment',
  'key_id',
  'user_id',
  'timestamp',
  'timestamp_ms',
  'original_timestamp_ms',
  'received_at',
  'received_at_ms',
  'sent_at_ms',
  'timestamp_flagged',
] as const
export const EVENT_COLUMNS = [
  ...COMMON_COLUMNS,
  'event',
  'properties',
  'context',
  'ip',
  'user_agent',
  'message_id',
  'user_email',
  'user_traits',
  'anonymous_id',
] as const
export const IDENTIFY_COLUMNS = [
  ...COMMON_COLUMNS,
  'email',
  'traits',
  'context',
  'ip',
  'user_agent',
  'message_id',
  'anonymous_id',
] as const
export const TRAIT_COLUMNS = [
  'account_id',
  'environment',
  'user_id',
  'trait_key',
  'value',
  'set_at',
  'set_at_ms',
  'source_event_id',
] as const

/** The values events and identifies share, in COMMON_COLUMNS order: identity and the times of H13 (seconds and ms). */
function commonValues(r: EventRecord | IdentifyRecord): RowValues {
  const ts = instant(r.timestamp, 'timestamp', r.event_id)
  const received = instant(r.received_at, 'received_at', r.event_id)
  return [
    r.event_id,
    r.account_id,
    environment(r.environment, r.event_id),
    r.key_id,
    r.user_id,
    ts.text,
    ts.ms,
    optionalMs(r.original_timestamp, 'original_timestamp', r.event_id),
    received.text,
    received.ms,
    optionalMs(r.sent_at, 'sent_at', r.event_id),
    r.timestamp_flagged ? 1 : 0,
  ]
}

/** An events row, in EVENT_COLUMNS order. */
export function eventValues(r: EventRecord): RowValues {
  const v = commonValues(r)
  v.push(
    r.event,
    r.properties,
    r.context,
    r.ip ?? '',
    r.user_agent ?? '',
    r.message_id ?? '',
    profileEmail(r.user_email, r.user_traits, r.event_id),
    r.user_traits ?? '',
    r.anonymous_id ?? '',
  )
  return v
}

/** An identifies row, in IDENTIFY_COLUMNS order. */
export function identifyValues(r: IdentifyRecord): RowValues {
  const v = commonValues(r)
  v.push(
    profileEmail(r.email, r.traits, r.event_id),
    r.traits,
    r.context,
    r.ip ?? '',
    r.user_agent ?? '',
    r.message_id ?? '',
    r.anonymous_id ?? '',
  )
  return v
}

/** A row as an object keyed by its columns: for reading a row (tests, logs), not for writing it. */
export function rowObject<T>(columns: readonly string[], values: RowValues): T {
  const o: Record<string, string | number> = {}
  for (let i = 0; i < columns.length; i++) o[columns[i]!] = values[i]!
  return o as T
}

export function eventRow(r: EventRecord): EventRow {
  return rowObject(EVENT_COLUMNS, eventValues(r))
}

export function identifyRow(r: IdentifyRecord): IdentifyRow {
  return rowObject(IDENTIFY_COLUMNS, identifyValues(r))
}

/**
 * When a record's traits were set, and their version (H39): its event time, but never later than
 * the server received it. H13 keeps a timestamp up to 24 h ahead of the server; versioned by that
 * alone, an event from a clock ahead of the server held its traits against every later identify
 * for as long. Back-dated records (imports) keep their event time.
 */
export function traitVersionMs(timestamp: number, receivedAt: number): number {
  return timestamp < receivedAt ? timestamp : receivedAt
}

/**
 * One row per top-level trait key, in TRAIT_COLUMNS order, versioned by setAtMs (traitVersionMs),
 * so the latest wins per key and keys a record does not name are untouched.
 */
export function traitValues(
  accountId: string,
  userId: string,
  traitsJson: string | null,
  setAtMs: number,
  env: Environment = 'live',
  sourceEventId = '',
): RowValues[] {
  const traits = parseTraits(traitsJson, sourceEventId)
  const keys = Object.keys(traits)
  if (keys.length === 0) return []
  for (const key of keys) {
    // ClickHouse's JSON parser refuses an unpaired surrogate escape (code 25), and a String column
    // holds UTF-8, which has no form for one. Ingest refuses them (H9); older records may not.
    if (!isWellFormed(key)) throw new RowMappingError('a trait key holds an unpaired UTF-16 surrogate', sourceEventId)
  }
  const at = instant(setAtMs, 'timestamp', sourceEventId)
  const environmentValue = environment(env, sourceEventId)
  return keys.map((key) => [
    accountId,
    environmentValue,
    userId,
    key,
    JSON.stringify(traits[key] === undefined ? null : traits[key]),
    at.text,
    at.ms,
    sourceEventId,
  ])
}

export function traitRows(...args: Parameters<typeof traitValues>): TraitRow[] {
  return traitValues(...args).map((v) => rowObject<TraitRow>(TRAIT_COLUMNS, v))
}

/** Trait rows for an event's `user.traits` (H10). */
export function eventTraitValues(r: EventRecord): RowValues[] {
  return traitValues(
    r.account_id,
    r.user_id,
    r.user_traits,
    traitVersionMs(r.timestamp, r.received_at),
    r.environment,
    r.event_id,
  )
}

/** Trait rows for an identify's traits. */
export function identifyTraitValues(r: IdentifyRecord): RowValues[] {
  return traitValues(
    r.account_id,
    r.user_id,
    r.traits,
    traitVersionMs(r.timestamp, r.received_at),
    r.environment,
    r.event_id,
  )
}

export const eventTraitRows = (r: EventRecord): TraitRow[] =>
  eventTraitValues(r).map((v) => rowObject<TraitRow>(TRAIT_COLUMNS, v))
export const identifyTraitRows = (r: IdentifyRecord): TraitRow[] =>
  identifyTraitValues(r).map((v) => rowObject<TraitRow>(TRAIT_COLUMNS, v))
