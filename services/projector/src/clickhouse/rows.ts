// Pure mapping from log records to ClickHouse insert rows (written as TabSeparated, tsv.ts).
// Column meanings: schemas/clickhouse/README.md. Times: each instant is written twice,
// as DateTime('UTC') text ('YYYY-MM-DD hh:mm:ss', whole seconds) and as epoch ms
// (Int64), since 18.16 has no DateTime64 (A6). Absent optional times are 0, absent
// optional strings are ''.

import type { Environment, EventRecord, IdentifyRecord } from '../../../../schemas/records.js'
import { formatDateTime } from '../../../../schemas/clickhouse/sql.js'
import { AppError } from '../../../shared/src/errors.js'

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
}

export interface IdentifyRow extends CommonRow {
  email: string
  traits: string
  context: string
  ip: string
  user_agent: string
  message_id: string
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
const MAX_MS = Date.UTC(2105, 11, 31, 23, 59, 59, 999)
// ClickHouse's JSON parser refuses an unpaired surrogate escape (code 25), and a String column
// holds UTF-8, which has no form for one. Ingest refuses them (issue 9); older records may not.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function instant(ms: number, field: string, eventId: string): { text: string; ms: number } {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_MS) {
    throw new RowMappingError(`${field} ${ms} is outside the DateTime range`, eventId)
  }
  return { text: dateTimeText(ms), ms }
}

// formatDateTime builds a Date and pads six parts: about 1.5 µs, and a row has two or three
// instants (issue 10, replay profile). The day part is cached (a replay's records fall on a few
// thousand days at most; the cache is cleared past DAY_CACHE_MAX) and the time part is arithmetic.
// Numbers are not an option: current servers refuse a short number as DateTime text.
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'))
const DAY_CACHE_MAX = 10_000
const dayPrefix = new Map<number, string>()

function dateTimeText(ms: number): string {
  const sec = Math.floor(ms / 1000)
  const day = Math.floor(sec / 86_400)
  let prefix = dayPrefix.get(day)
  if (prefix === undefined) {
    if (dayPrefix.size >= DAY_CACHE_MAX) dayPrefix.clear()
    prefix = formatDateTime(day * 86_400_000).slice(0, 11)
    dayPrefix.set(day, prefix)
  }
  let s = sec - day * 86_400
  const h = Math.floor(s / 3600)
  s -= h * 3600
  const m = Math.floor(s / 60)
  return prefix + TWO_DIGITS[h] + ':' + TWO_DIGITS[m] + ':' + TWO_DIGITS[s - m * 60]
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
  if (email) return email
  const fromTraits = parseTraits(traitsJson, eventId)['email']
  return typeof fromTraits === 'string' ? fromTraits : ''
}

/** The columns events and identifies share: identity and the times of H13 (seconds and ms). */
function commonColumns(r: EventRecord | IdentifyRecord): CommonRow {
  const ts = instant(r.timestamp, 'timestamp', r.event_id)
  const received = instant(r.received_at, 'received_at', r.event_id)
  return {
    event_id: r.event_id,
    account_id: r.account_id,
    environment: environment(r.environment, r.event_id),
    key_id: r.key_id,
    user_id: r.user_id,
    timestamp: ts.text,
    timestamp_ms: ts.ms,
    original_timestamp_ms: optionalMs(r.original_timestamp, 'original_timestamp', r.event_id),
    received_at: received.text,
    received_at_ms: received.ms,
    sent_at_ms: optionalMs(r.sent_at, 'sent_at', r.event_id),
    timestamp_flagged: r.timestamp_flagged ? 1 : 0,
  }
}

// The rows are built with Object.assign onto the common columns, not with a spread of them into a
// literal: in V8 (Node 20) the spread form cost about 30 µs per row against 2-4 µs, over half of a
// replay's CPU per record (issue 10, BENCHMARKS.md "Replay").
export function eventRow(r: EventRecord): EventRow {
  return Object.assign(commonColumns(r), {
    event: r.event,
    properties: r.properties,
    context: r.context,
    ip: r.ip ?? '',
    user_agent: r.user_agent ?? '',
    message_id: r.message_id ?? '',
    user_email: profileEmail(r.user_email, r.user_traits, r.event_id),
    user_traits: r.user_traits ?? '',
  })
}

export function identifyRow(r: IdentifyRecord): IdentifyRow {
  return Object.assign(commonColumns(r), {
    email: profileEmail(r.email, r.traits, r.event_id),
    traits: r.traits,
    context: r.context,
    ip: r.ip ?? '',
    user_agent: r.user_agent ?? '',
    message_id: r.message_id ?? '',
  })
}

/**
 * One row per top-level trait key, versioned by setAtMs (the record's event time), so
 * the latest event time wins per key and keys a record does not name are untouched.
 */
export function traitRows(
  accountId: string,
  userId: string,
  traitsJson: string | null,
  setAtMs: number,
  env: Environment = 'live',
  sourceEventId = '',
): TraitRow[] {
  const traits = parseTraits(traitsJson, sourceEventId)
  const keys = Object.keys(traits)
  if (keys.length === 0) return []
  for (const key of keys) {
    if (LONE_SURROGATE.test(key)) throw new RowMappingError('a trait key holds an unpaired UTF-16 surrogate', sourceEventId)
  }
  const at = instant(setAtMs, 'timestamp', sourceEventId)
  const environmentValue = environment(env, sourceEventId)
  return keys.map((key) => ({
    account_id: accountId,
    environment: environmentValue,
    user_id: userId,
    trait_key: key,
    value: JSON.stringify(traits[key] === undefined ? null : traits[key]),
    set_at: at.text,
    set_at_ms: at.ms,
    source_event_id: sourceEventId,
  }))
}

/** Trait rows for an event's `user.traits` (H10). */
export function eventTraitRows(r: EventRecord): TraitRow[] {
  return traitRows(r.account_id, r.user_id, r.user_traits, r.timestamp, r.environment, r.event_id)
}

/** Trait rows for an identify's traits. */
export function identifyTraitRows(r: IdentifyRecord): TraitRow[] {
  return traitRows(r.account_id, r.user_id, r.traits, r.timestamp, r.environment, r.event_id)
}
