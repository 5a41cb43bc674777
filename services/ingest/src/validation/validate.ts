// Request-body validation for POST /v1/event and POST /v1/events (docs/api.md field tables,
// H8-H10, H13, H16). Hand-written checks on the hot path: every problem is
// reported at once as {path, message} with JSON pointer paths relative to the request
// root (H8). The bounds and patterns are rules.ts's, which the TypeBox schemas of schemas.ts
// (for OpenAPI) read too (H64).
// Unknown extra fields are allowed and ignored.
import {
  CONTROL_CHAR_CLASS,
  codePointLength,
  EMAIL_PATTERN,
  MAX_BATCH_ITEMS,
  MAX_EMAIL_LENGTH,
  MAX_EVENT_BYTES,
  MAX_MESSAGE_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_TRAIT_KEY_LENGTH,
  MAX_TRAIT_KEYS,
} from './rules.js'
import { isWellFormed } from '../../../shared/src/well-formed.js'
import { correctTime, MIN_STORED_MS, MIN_STORED_TEXT, timestampMs } from './timestamp.js'

export interface FieldError {
  path: string
  message: string
}

export interface EventItem {
  kind: 'event'
  event: string
  user: { id: string; email?: string; traits?: Record<string, unknown> }
  /** The client's time as validation read it, epoch ms (H9: no offset means UTC); mapping uses it as is. */
  timestamp?: number
  properties: Record<string, unknown>
  context: Record<string, unknown>
  message_id?: string
  /** The visitor's anonymous id (H52): our own items' optional `anonymous_id` (H71), or a Segment call's `anonymousId`. */
  anonymous_id?: string
}

export interface IdentifyItem {
  kind: 'identify'
  user: { id: string; email?: string }
  /** user.traits merged with top-level traits, top level winning (H10). */
  traits: Record<string, unknown>
  /** From traits.email, else user.email (H10). */
  email?: string
  /** As on EventItem: epoch ms, read once, by validation. */
  timestamp?: number
  context: Record<string, unknown>
  message_id?: string
  /** As on EventItem (H52, H71); on an identify it links the anonymous id to user.id (H50). */
  anonymous_id?: string
}

export type Item = EventItem | IdentifyItem

export type BatchItemResult =
  | { index: number; ok: true; item: Item }
  | { index: number; ok: false; errors: FieldError[] }

type Obj = Record<string, unknown>

// No C0/C1 control characters (H9) and no bidirectional controls (H29): one test on the hot path;
// the second only picks the message.
const CONTROL_CHARS = new RegExp(`[${CONTROL_CHAR_CLASS}]`)
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 and C1 controls are what H9 refuses
const C0_C1 = /[\x00-\x1F\x7F-\x9F]/
const EMAIL = new RegExp(EMAIL_PATTERN)

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  const t = typeof v
  return t === 'object' ? 'an object' : `a ${t}`
}

/** Why a string failed CONTROL_CHARS. */
const controlMessage = (label: string, v: string) =>
  C0_C1.test(v)
    ? `${label} must not contain control characters`
    : `${label} must not contain bidirectional controls (U+202A-U+202E, U+2066-U+2069)`

/** H9, H29: non-empty string, at most 255 characters, no control characters. */
function checkName(v: unknown, path: string, label: string, errs: FieldError[]): string | undefined {
  if (typeof v !== 'string') {
    errs.push({ path, message: `${label} must be a string, got ${kindOf(v)}` })
    return undefined
  }
  if (v.length === 0) {
    errs.push({ path, message: `${label} must not be empty` })
    return undefined
  }
  let ok = true
  if (v.length > MAX_NAME_LENGTH) {
    const n = codePointLength(v)
    if (n > MAX_NAME_LENGTH) {
      errs.push({ path, message: `${label} must be at most ${MAX_NAME_LENGTH} characters, got ${n}` })
      ok = false
    }
  }
  if (CONTROL_CHARS.test(v)) {
    errs.push({ path, message: controlMessage(label, v) })
    ok = false
  }
  return ok ? v : undefined
}

/**
 * H30: an e-mail address that sets the profile's: a plausible address (local@domain, no white
 * space or control characters), at most 254 characters; '' means none. Other types are the caller's.
 */
function checkEmail(v: string, path: string, label: string, errs: FieldError[]): boolean {
  const n = v.length > MAX_EMAIL_LENGTH ? codePointLength(v) : v.length
  if (n > MAX_EMAIL_LENGTH) {
    errs.push({ path, message: `${label} must be at most ${MAX_EMAIL_LENGTH} characters, got ${n}` })
    return false
  }
  if (EMAIL.test(v)) return true
  errs.push({
    path,
    message: CONTROL_CHARS.test(v)
      ? controlMessage(label, v)
      : `${label} must be an e-mail address such as a@example.com: one @ between a local part and a domain, no white space`,
  })
  return false
}

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k)

/**
 * H28: traits hold at most MAX_TRAIT_KEYS top-level keys of at most MAX_TRAIT_KEY_LENGTH
 * characters, and a string email is an address (H30). Returns the number of keys.
 */
function checkTraits(traits: Obj, path: string, label: string, errs: FieldError[]): number {
  let keys = 0
  let long: string | undefined
  for (const k in traits) {
    keys++
    if (k.length > MAX_TRAIT_KEY_LENGTH && long === undefined && codePointLength(k) > MAX_TRAIT_KEY_LENGTH) long = k
  }
  if (keys > MAX_TRAIT_KEYS) {
    errs.push({ path, message: `${label} has ${keys} keys; at most ${MAX_TRAIT_KEYS} are allowed` })
  }
  if (long !== undefined) {
    errs.push({
      path,
      message: `${label} has a key of ${codePointLength(long)} characters (${JSON.stringify(long.slice(0, 20))}...); keys are at most ${MAX_TRAIT_KEY_LENGTH} characters`,
    })
  }
  const email = traits.email
  if (typeof email === 'string') checkEmail(email, `${path}/email`, `${label}.email`, errs)
  return keys
}

/** H28 on an identify's top-level traits, alone and merged with user.traits (the keys H10 stores). */
function checkIdentifyTraits(traits: Obj, userTraits: Obj | undefined, path: string, errs: FieldError[]): void {
  const keys = checkTraits(traits, path, 'traits', errs)
  if (keys > MAX_TRAIT_KEYS || userTraits === undefined) return
  const userKeys = Object.keys(userTraits).length
  // user.traits over the cap alone is reported at its own path.
  if (userKeys > MAX_TRAIT_KEYS) return
  let merged = userKeys
  for (const k in traits) if (!hasOwn(userTraits, k)) merged++
  if (merged > MAX_TRAIT_KEYS) {
    errs.push({
      path,
      message: `traits merged with user.traits have ${merged} keys (H10); at most ${MAX_TRAIT_KEYS} are allowed`,
    })
  }
}

/** properties, context and traits: JSON objects, not arrays or null (H9). Absent gives undefined. */
function checkOptionalObject(v: unknown, path: string, label: string, errs: FieldError[]): Obj | undefined {
  if (v === undefined) return undefined
  if (!isObject(v)) {
    errs.push({ path, message: `${label} must be an object, got ${kindOf(v)}` })
    return undefined
  }
  return v
}

function checkTimestamp(
  v: unknown,
  path: string,
  label: string,
  errs: FieldError[],
): { text: string; ms: number } | undefined {
  if (typeof v !== 'string') {
    errs.push({ path, message: `${label} must be an ISO 8601 date-time string, got ${kindOf(v)}` })
    return undefined
  }
  const ms = timestampMs(v)
  if (Number.isNaN(ms)) {
    errs.push({
      path,
      message: `${label} must be an ISO 8601 date-time such as 2024-05-01T12:30:00.000Z (offset Z or ±hh:mm, none means UTC)`,
    })
    return undefined
  }
  return { text: v, ms }
}

/** The times a request is judged against: its receipt and the batch's sent_at (H13). */
interface Clock {
  receivedAt: number
  sentAt: number | null
}

/**
 * An event time that would be stored before the epoch cannot be written to ClickHouse: refuse
 * it here rather than answer 200 for a record the projector must dead-letter (A4, H9, H26). The
 * check is on the time H13 stores, so a client whose clock and sent_at are both pre-1970 is
 * corrected and accepted, and a sent_at far ahead of the timestamp can push it out of range.
 */
function checkStoredTime(ts: { text: string; ms: number }, clock: Clock, path: string, errs: FieldError[]): boolean {
  const stored = correctTime(ts.ms, clock.sentAt, clock.receivedAt).timestamp
  if (stored >= MIN_STORED_MS) return true
  errs.push({
    path,
    message:
      clock.sentAt === null
        ? `timestamp ${ts.text} is before ${MIN_STORED_TEXT}, the earliest event time that can be stored`
        : `timestamp ${ts.text} corrected for clock skew with sent_at (received_at - (sent_at - timestamp)) is ` +
          `${new Date(stored).toISOString()}, before ${MIN_STORED_TEXT}, the earliest event time that can be stored`,
  })
  return false
}

/** H16: optional message_id, 1 to 100 characters. */
function checkMessageId(v: unknown, path: string, errs: FieldError[]): string | undefined {
  if (v === undefined) return undefined
  if (typeof v !== 'string') {
    errs.push({ path, message: `message_id must be a string, got ${kindOf(v)}` })
    return undefined
  }
  const n = v.length > MAX_MESSAGE_ID_LENGTH ? codePointLength(v) : v.length
  if (n < 1 || n > MAX_MESSAGE_ID_LENGTH) {
    errs.push({ path, message: `message_id must be 1 to ${MAX_MESSAGE_ID_LENGTH} characters, got ${n}` })
    return undefined
  }
  return v
}

interface CheckedUser {
  id: string
  email?: string
  traits?: Obj
}

/** The user object (docs/api.md, POST /v1/event); a bare string is the removed pre-v1 form (H8). */
function checkUser(v: unknown, path: string, errs: FieldError[]): CheckedUser | undefined {
  if (v === undefined) {
    errs.push({ path, message: 'user is required: an object with at least {"id": "<user id>"}' })
    return undefined
  }
  if (typeof v === 'string') {
    errs.push({
      path,
      message: 'user must be an object {"id": "<user id>"}; the bare-string form was removed in v1',
    })
    return undefined
  }
  if (!isObject(v)) {
    errs.push({ path, message: `user must be an object {"id": "<user id>"}, got ${kindOf(v)}` })
    return undefined
  }
  const before = errs.length
  let id: string | undefined
  if (v.id === undefined) errs.push({ path: `${path}/id`, message: 'user.id is required' })
  else id = checkName(v.id, `${path}/id`, 'user.id', errs)
  const email = v.email
  if (typeof email === 'string') checkEmail(email, `${path}/email`, 'user.email', errs)
  else if (email !== undefined)
    errs.push({ path: `${path}/email`, message: `user.email must be a string, got ${kindOf(email)}` })
  const traits = checkOptionalObject(v.traits, `${path}/traits`, 'user.traits', errs)
  if (traits !== undefined) checkTraits(traits, `${path}/traits`, 'user.traits', errs)
  if (errs.length !== before || id === undefined) return undefined
  const user: CheckedUser = { id }
  if (email !== undefined) user.email = email as string
  if (traits !== undefined) user.traits = traits
  return user
}

/** One segment of a JSON pointer (RFC 6901). */
const pointer = (key: string) =>
  key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key

// What scan found: nothing (CLEAN, or any length bound >= 0), or the first problem (< 0).
const CLEAN = 0
const LONE_IN_STRING = -1
const HUGE_NUMBER = -2
const TOO_DEEP = -3
const LONE_IN_KEY = -4
const PROTO_KEY = -5

// A `__proto__` key parses as an own property, but any copy by assignment (out[k] = v, Object.assign)
// would set the copy's prototype instead: such an item is refused here, naming the key, so no record
// or row is ever built from one (H31). The request's own top level is refused when parsed (json-body.ts).
const PROTO = '__proto__'

/**
 * Recursion is bounded: it stops at MAX_NESTING_DEPTH + 1 levels, however deep the value, so no
 * body can overflow the stack (the JSON.stringify of checkSize would, at a few thousand levels).
 */
// A clean value's scan returns an upper bound of the length of its JSON.stringify text: a string at
// most 6 characters per UTF-16 unit (\uXXXX) plus quotes, a number at most 32, a literal 5, a key as a
// string plus colon and comma, brackets 2 (checkSize). A problem is returned instead, as a negative code.
function scan(v: unknown, depth: number): number {
  if (typeof v === 'string') return isWellFormed(v) ? 2 + 6 * v.length : LONE_IN_STRING
  if (typeof v === 'number') return Number.isFinite(v) ? 32 : HUGE_NUMBER
  if (typeof v !== 'object' || v === null) return 5
  if (depth > MAX_NESTING_DEPTH) return TOO_DEEP
  if (Array.isArray(v)) {
    let bound = 2 + v.length
    for (let i = 0; i < v.length; i++) {
      const p = scan(v[i], depth + 1)
      if (p < 0) return p
      bound += p
    }
    return bound
  }
  let bound = 2
  // for-in: JSON.parse objects inherit no enumerable keys, and it allocates no key array.
  for (const k in v) {
    if (!isWellFormed(k)) return LONE_IN_KEY
    if (k === PROTO) return PROTO_KEY
    const p = scan((v as Obj)[k], depth + 1)
    if (p < 0) return p
    bound += 4 + 6 * k.length + p
  }
  return bound
}

function scanMessage(problem: number, name: string): string {
  switch (problem) {
    case LONE_IN_STRING:
      return `${name} holds a string with an unpaired UTF-16 surrogate; send valid Unicode`
    case HUGE_NUMBER:
      return `${name} holds a number too large for a 64-bit float`
    case TOO_DEEP:
      return `${name} nests objects and arrays more than ${MAX_NESTING_DEPTH} levels deep; at most ${MAX_NESTING_DEPTH} are allowed`
    case PROTO_KEY:
      return `${name} holds a "${PROTO}" key, which is not accepted in any object of an item`
    default:
      return `${name} has a key with an unpaired UTF-16 surrogate; send valid Unicode`
  }
}

/** The JSON pointer of the first `__proto__` key scan found under `v`, which is at `at`. */
function protoKeyPath(v: unknown, at: string): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined
  for (const k in v) {
    const p = `${at}/${pointer(k)}`
    if (k === PROTO) return p
    const found = protoKeyPath((v as Obj)[k], p)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Checks every value of one event (known and unknown fields alike, since all of it is measured
 * by JSON.stringify): nesting deeper than MAX_NESTING_DEPTH, an unpaired surrogate in a string
 * or a key, or a number too large for a double (JSON.parse makes it Infinity, which would be
 * stored as null). Reports the first problem under each top-level field by that field's path,
 * or under user by /user/<field>. Returns TOO_DEEP when something nests too deep, so the caller
 * must not stringify the event; else an upper bound of its JSON text's length (checkSize), or
 * UNKNOWN_BOUND when a problem stopped the scan of part of it.
 */
function checkJsonValues(o: Obj, path: string, errs: FieldError[]): number {
  let shallow = true
  let clean = true
  let bound = 2
  // The path is built only for a problem: most events have none.
  const check = (v: unknown, depth: number, key: string, at: () => string) => {
    const scanned = scan(v, depth)
    const problem = scanned < 0 ? scanned : CLEAN
    if (scanned >= 0) bound += 4 + 6 * key.length + scanned
    // Depth is noted even when the key is reported instead: the value must not be stringified.
    if (problem === TOO_DEEP) shallow = false
    const keyOk = isWellFormed(key) && key !== PROTO
    if (problem === CLEAN && keyOk) return
    clean = false
    const p = at()
    if (key === PROTO) errs.push({ path: p, message: `"${PROTO}" is not accepted as a field name` })
    else if (!keyOk)
      errs.push({ path: p, message: 'field name contains an unpaired UTF-16 surrogate; send valid Unicode' })
    else if (problem === PROTO_KEY)
      errs.push({ path: protoKeyPath(v, p) ?? p, message: scanMessage(problem, p.slice(path.length + 1)) })
    else errs.push({ path: p, message: scanMessage(problem, p.slice(path.length + 1)) })
  }
  for (const key in o) {
    const v = o[key]
    const at = () => `${path}/${pointer(key)}`
    if (key === 'user' && isObject(v)) {
      // The key 'user' and its braces; check() counts each field's key and value.
      bound += 4 + 6 * key.length + 2
      for (const k in v) check(v[k], 2, k, () => `${at()}/${pointer(k)}`)
    } else {
      check(v, 1, key, at)
    }
  }
  if (!shallow) return TOO_DEEP
  // A scan that stopped at a problem saw only part of the event: no bound then.
  return clean ? bound : UNKNOWN_BOUND
}

/** checkJsonValues saw only part of the event: its size is measured. */
const UNKNOWN_BOUND = Number.POSITIVE_INFINITY

/** H9: one event's JSON at most 32 KB, measured as JSON.stringify's UTF-8 bytes; `bound` is
 *  checkJsonValues' upper bound of its length. */
function checkSize(raw: unknown, path: string, errs: FieldError[], bound: number): void {
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: an event whose JSON cannot reach a third of the
  // limit in UTF-16 units needs no JSON.stringify at all (the common case).
  if (bound * 3 <= MAX_EVENT_BYTES) return
  const json = JSON.stringify(raw)
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: skip the exact count when the answer is certain.
  if (json.length * 3 <= MAX_EVENT_BYTES) return
  const bytes = Buffer.byteLength(json, 'utf8')
  if (bytes > MAX_EVENT_BYTES) {
    errs.push({ path, message: `event JSON is ${bytes} bytes; at most ${MAX_EVENT_BYTES} bytes (32 KB) allowed` })
  }
}

interface Common {
  user: CheckedUser | undefined
  timestamp: number | undefined
  context: Obj | undefined
  message_id: string | undefined
  anonymous_id: string | undefined
}

function checkCommon(o: Obj, path: string, clock: Clock, errs: FieldError[]): Common {
  const user = checkUser(o.user, `${path}/user`, errs)
  let timestamp: number | undefined
  if (o.timestamp !== undefined) {
    const ts = checkTimestamp(o.timestamp, `${path}/timestamp`, 'timestamp', errs)
    if (ts !== undefined && checkStoredTime(ts, clock, `${path}/timestamp`, errs)) timestamp = ts.ms
  }
  return {
    user,
    timestamp,
    context: checkOptionalObject(o.context, `${path}/context`, 'context', errs),
    message_id: checkMessageId(o.message_id, `${path}/message_id`, errs),
    // H71: optional, with the rules of user.id (H9, H29).
    anonymous_id:
      o.anonymous_id === undefined
        ? undefined
        : checkName(o.anonymous_id, `${path}/anonymous_id`, 'anonymous_id', errs),
  }
}

function eventItem(name: string, c: Common, properties: Obj | undefined): EventItem {
  const item: EventItem = {
    kind: 'event',
    event: name,
    user: c.user!,
    properties: properties ?? {},
    context: c.context ?? {},
  }
  if (c.timestamp !== undefined) item.timestamp = c.timestamp
  if (c.message_id !== undefined) item.message_id = c.message_id
  if (c.anonymous_id !== undefined) item.anonymous_id = c.anonymous_id
  return item
}

/** Validates a POST /v1/event body: exactly one event, named by `event` (docs/api.md Endpoints, H8). */
export function validateSingle(
  body: unknown,
  receivedAt: number = Date.now(),
): { ok: true; item: EventItem } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = []
  if (!isObject(body)) {
    errors.push({ path: '', message: `request body must be a JSON object (one event), got ${kindOf(body)}` })
    return { ok: false, errors }
  }
  let name: string | undefined
  if (body.event === undefined) {
    errors.push({
      path: '/event',
      message:
        body.name !== undefined
          ? 'event is required: POST /v1/event names the event in "event", not "name" ("name" is accepted only in batch items)'
          : 'event is required: the event name, e.g. "signup_completed"',
    })
  } else {
    name = checkName(body.event, '/event', 'event', errors)
  }
  const common = checkCommon(body, '', { receivedAt, sentAt: null }, errors)
  const properties = checkOptionalObject(body.properties, '/properties', 'properties', errors)
  const bound = checkJsonValues(body, '', errors)
  if (bound !== TOO_DEEP) checkSize(body, '', errors, bound)
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, item: eventItem(name!, common, properties) }
}

function validateItem(raw: unknown, index: number, clock: Clock): BatchItemResult {
  const path = `/events/${index}`
  const errors: FieldError[] = []
  if (!isObject(raw)) {
    errors.push({ path, message: `batch item must be an object, got ${kindOf(raw)}` })
    return { index, ok: false, errors }
  }
  const type = raw.type
  if (type === undefined) {
    errors.push({ path: `${path}/type`, message: 'type is required: "event" or "identify"' })
  } else if (type !== 'event' && type !== 'identify') {
    errors.push({
      path: `${path}/type`,
      message: `type must be "event" or "identify", got ${typeof type === 'string' ? JSON.stringify(type) : kindOf(type)}`,
    })
  }
  const common = checkCommon(raw, path, clock, errors)
  const bound = checkJsonValues(raw, path, errors)
  const shallow = bound !== TOO_DEEP

  if (type === 'event') {
    // H10: `event` and `name` are both accepted; `event` is read when both are present, and both
    // must be valid names then, so nothing sent is dropped unchecked.
    let name: string | undefined
    if (raw.event !== undefined) name = checkName(raw.event, `${path}/event`, 'event', errors)
    if (raw.name !== undefined) {
      const alt = checkName(raw.name, `${path}/name`, 'name', errors)
      if (raw.event === undefined) name = alt
    } else if (raw.event === undefined) {
      errors.push({ path: `${path}/event`, message: 'event name is required: give "event" (or "name")' })
    }
    const properties = checkOptionalObject(raw.properties, `${path}/properties`, 'properties', errors)
    if (shallow) checkSize(raw, path, errors, bound)
    if (errors.length > 0) return { index, ok: false, errors }
    return { index, ok: true, item: eventItem(name!, common, properties) }
  }

  const traits = type === 'identify' ? checkOptionalObject(raw.traits, `${path}/traits`, 'traits', errors) : undefined
  if (traits !== undefined) checkIdentifyTraits(traits, common.user?.traits, `${path}/traits`, errors)
  if (shallow) checkSize(raw, path, errors, bound)
  if (errors.length > 0) return { index, ok: false, errors }

  // type === 'identify' here. H10: user.traits and top-level traits merged, top level winning;
  // the profile email comes from traits.email, else user.email.
  const u = common.user!
  const merged: Obj = u.traits === undefined ? { ...traits } : { ...u.traits, ...traits }
  const user: IdentifyItem['user'] = { id: u.id }
  if (u.email !== undefined) user.email = u.email
  const item: IdentifyItem = { kind: 'identify', user, traits: merged, context: common.context ?? {} }
  const email = typeof merged.email === 'string' && merged.email !== '' ? merged.email : u.email
  if (email !== undefined) item.email = email
  if (common.timestamp !== undefined) item.timestamp = common.timestamp
  if (common.message_id !== undefined) item.message_id = common.message_id
  if (common.anonymous_id !== undefined) item.anonymous_id = common.anonymous_id
  return { index, ok: true, item }
}

/**
 * Validates a POST /v1/events body. Envelope problems (sent_at, events not 1..100 items)
 * reject the whole request (H11); otherwise each item is validated on its own.
 */
export function validateBatch(
  body: unknown,
  receivedAt: number = Date.now(),
): { ok: false; errors: FieldError[] } | { ok: true; sentAt: string; sentAtMs: number; items: BatchItemResult[] } {
  const errors: FieldError[] = []
  if (!isObject(body)) {
    errors.push({ path: '', message: `request body must be a JSON object {sent_at, events}, got ${kindOf(body)}` })
    return { ok: false, errors }
  }
  let sentAt: { text: string; ms: number } | undefined
  if (body.sent_at === undefined) {
    errors.push({ path: '/sent_at', message: 'sent_at is required: the ISO 8601 time the batch was sent' })
  } else {
    sentAt = checkTimestamp(body.sent_at, '/sent_at', 'sent_at', errors)
  }
  const events = body.events
  if (events === undefined) {
    errors.push({ path: '/events', message: `events is required: an array of 1 to ${MAX_BATCH_ITEMS} items` })
  } else if (!Array.isArray(events)) {
    errors.push({
      path: '/events',
      message: `events must be an array of 1 to ${MAX_BATCH_ITEMS} items, got ${kindOf(events)}`,
    })
  } else if (events.length === 0) {
    errors.push({ path: '/events', message: 'events must contain at least 1 item' })
  } else if (events.length > MAX_BATCH_ITEMS) {
    errors.push({
      path: '/events',
      message: `events must contain at most ${MAX_BATCH_ITEMS} items, got ${events.length}`,
    })
  }
  if (errors.length > 0) return { ok: false, errors }
  const list = events as unknown[]
  const items: BatchItemResult[] = new Array(list.length)
  const clock: Clock = { receivedAt, sentAt: sentAt!.ms }
  for (let i = 0; i < list.length; i++) items[i] = validateItem(list[i], i, clock)
  return { ok: true, sentAt: sentAt!.text, sentAtMs: sentAt!.ms, items }
}
