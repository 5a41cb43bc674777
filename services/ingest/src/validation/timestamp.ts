// ISO 8601 timestamps as this service accepts them (H9, H13): a full date-time with
// optional fraction and an optional `Z` or ±hh:mm offset; no offset means UTC.
// A plain date (YYYY-MM-DD) is not a timestamp. One regex plus a calendar check, no Date
// string parsing (Date.parse is lenient and treats offset-less times as local time).

/** Source of the regex, shared with the TypeBox schemas (schemas.ts) so both agree. */
export const ISO_DATE_TIME_PATTERN =
  '^(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,9}))?(Z|[+-]\\d{2}:\\d{2})?$'

const ISO_DATE_TIME = new RegExp(ISO_DATE_TIME_PATTERN)

// The same set written out for the OpenAPI document, which has no calendar check beside its
// pattern: months, days per month (leap years included), hours, minutes, seconds and offsets in
// range. [0-9], not \d: other regex engines (Python's, in API fuzzers) read \d as any Unicode digit.
const D = '[0-9]'
const MONTH_DAY = `(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]${D}|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]${D}|30)|02-(?:0[1-9]|1${D}|2[0-8]))`
const TIME_OF_DAY = `T(?:[01]${D}|2[0-3]):[0-5]${D}:[0-5]${D}(?:\\.${D}{1,9})?(?:Z|[+-](?:[01]${D}|2[0-3]):[0-5]${D})?$`
/** Years divisible by 4, except centuries not divisible by 400 (Gregorian leap years). */
const LEAP_YEAR_ANY = `(?:${D}{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)`
const LEAP_YEAR_1970 = `(?:19(?:7[26]|8[048]|9[26])|[2-9]${D}(?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[3579][26])00)`
const dateTime = (year: string, leapYear: string) => `^(?:${year}-${MONTH_DAY}|${leapYear}-02-29)${TIME_OF_DAY}`
/**
 * What isIsoDateTime accepts, years 1970 to 9999: event times, which are stored only from the
 * epoch on (MIN_STORED_MS; a batch item's time is checked after H13's correction, which a pattern
 * cannot express).
 */
export const ISO_DATE_TIME_SCHEMA_PATTERN = dateTime(`(?:19[7-9]${D}|[2-9]${D}{3})`, LEAP_YEAR_1970)
/** What isIsoDateTime accepts, any year: a batch's sent_at, which is never stored as an event time. */
export const ISO_SENT_AT_SCHEMA_PATTERN = dateTime(`${D}{4}`, LEAP_YEAR_ANY)

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29
  return DAYS_IN_MONTH[month - 1]!
}

/** Epoch ms of an ISO 8601 date-time, or NaN when the text is not one (format or calendar). */
export function timestampMs(s: string): number {
  return readTimestamp(s)
}

function readTimestamp(s: string): number {
  const m = ISO_DATE_TIME.exec(s)
  if (m === null) return NaN
  const year = +m[1]!
  const month = +m[2]!
  const day = +m[3]!
  const hour = +m[4]!
  const minute = +m[5]!
  const second = +m[6]!
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NaN
  if (hour > 23 || minute > 59 || second > 59) return NaN
  // Fraction: milliseconds precision, extra digits truncated.
  const frac = m[7]
  const ms = frac === undefined ? 0 : +(frac + '00').slice(0, 3)
  let offsetMin = 0
  const zone = m[8]
  if (zone !== undefined && zone !== 'Z') {
    const oh = +zone.slice(1, 3)
    const om = +zone.slice(4, 6)
    if (oh > 23 || om > 59) return NaN
    offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om)
  }
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear does not.
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  d.setUTCHours(hour, minute, second, ms)
  return d.getTime() - offsetMin * 60_000
}

export function isIsoDateTime(s: string): boolean {
  return !Number.isNaN(timestampMs(s))
}

/** H13: how far ahead of receipt a timestamp may be before it is replaced and flagged. */
export const MAX_FUTURE_MS = 24 * 60 * 60 * 1000

/**
 * The earliest event time that can be stored: ClickHouse's DateTime starts at the Unix epoch
 * (schemas/clickhouse/001_events.sql, A6). An item whose stored time (after H13) would fall
 * before it is refused with 400, so no record answered 200 is dead-lettered by the projector.
 * Later times need no bound: H13 never stores a time over 24 h past receipt.
 */
export const MIN_STORED_MS = 0
export const MIN_STORED_TEXT = '1970-01-01T00:00:00Z'

/**
 * H13: missing timestamp -> receivedAt. With sent_at, the client clock skew is removed:
 * receivedAt - (sentAt - clientTs). A result more than 24 h ahead of receivedAt is replaced
 * by receivedAt and flagged, never rejected. `original` is the client's own value.
 */
export function correctTime(
  clientTs: number | null,
  sentAt: number | null,
  receivedAt: number,
): { timestamp: number; original: number | null; flagged: boolean } {
  if (clientTs === null) return { timestamp: receivedAt, original: null, flagged: false }
  const corrected = sentAt === null ? clientTs : receivedAt - (sentAt - clientTs)
  if (corrected - receivedAt > MAX_FUTURE_MS) return { timestamp: receivedAt, original: clientTs, flagged: true }
  return { timestamp: corrected, original: clientTs, flagged: false }
}
