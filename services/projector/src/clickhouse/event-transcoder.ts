// An Event record's Avro bytes straight to its TabSeparated rows, for records written with the
// reader's own Event schema (schemas/avro/event.avsc): the same bytes in the same arenas as
// `prepareEvent(codec.decode(value))` (prepared.ts), without building the record.
//
// Why (bench/HISTORY.md, replay profile): decoding every string of a record into a JS string (avsc's
// readString, utf8Slice), then escaping it with a regular expression and encoding it back to UTF-8
// into the arena, was about a third of a replay's CPU per record, and the strings were most of its
// garbage. A UTF-8 field needs no decoding to be written as TabSeparated: the four bytes that
// TabSeparated escapes (tab, newline, carriage return, backslash) are ASCII, and in UTF-8 an ASCII
// byte is always that character, never part of another. So the field's bytes are copied with those
// four escaped. Only what the H16 lookup needs (event_id, account_id, message_id) becomes a string,
// and the traits JSON when there is one (its keys become rows).
//
// Anything this does not handle exactly as the general path does gives `null`, and the caller takes
// the general path, which then writes the record or finds the error to dead-letter it with:
// bytes that do not decode, a field that is not well-formed UTF-8 (avsc would decode it with
// U+FFFD in place of the bad bytes), a time outside DateTime, an unknown environment, traits that
// are not JSON or hold a key that cannot be written. rows.ts and tsv.ts state the rules; the test
// compares both paths byte for byte.
//
// A21: a sealed record of the stream format (A18) is taken too when its key is held: its body is opened
// to the packed personal fields (field-text.ts), whose texts are then copied from the opened bytes as the
// clear ones are from the record's. Only an ASCII plaintext is taken (its UTF-16 lengths are its byte
// lengths); anything else (a GCM body, a key not held yet or gone, non-ASCII text) goes the general path,
// which opens the record through record-opener.ts and waits for or stubs a missing key.
import { isAscii, isUtf8 } from 'node:buffer'
import type { EventRecord } from '../../../../schemas/records.js'
import { MAX_MS, TRAIT_COLUMNS, traitEmail, traitValues, traitVersionMs, writeDateTime } from './rows.js'
import { tsvLine } from './tsv.js'
import { loadAvsc } from '../../../../schemas/codec.js'
import { PERSONAL_FIELDS } from '../../../shared/src/privacy/crypto/index.js'
import type { PreparedRecord, RecordOrigin, RowArenas } from './prepared.js'

// How the reader takes each field of an Event, in the order of schemas/avro/event.avsc, which is
// read once here: the one statement of the layout (the TypeScript twin in schemas/records.ts is
// checked against it). A field of a type this path does not read makes it take no record (the
// general path takes them all), so a change to the schema can slow the projector, never misread.
const STRING = 0 // "string"
const OPTIONAL_STRING = 1 // ["null", "string"]
const LONG = 2 // "long", and timestamp-millis
const OPTIONAL_LONG = 3 // ["null", "long"]
const BOOLEAN = 4 // "boolean"
// ["null", a record] as the last field (A15's `enc`): taken when null, or absent in a record written
// before the field existed (Codec.readerLayout lets those through); a set value goes the general path.
const LAST_NULL = 5

export type AvscType = string | { type: string; logicalType?: string } | AvscType[]

function kindOf(t: AvscType): number {
  if (Array.isArray(t)) {
    if (t.length !== 2 || t[0] !== 'null') return -1
    if (typeof t[1] === 'object' && !Array.isArray(t[1]) && t[1].type === 'record') return LAST_NULL
    const inner = kindOf(t[1]!)
    return inner === STRING ? OPTIONAL_STRING : inner === LONG ? OPTIONAL_LONG : -1
  }
  const name = typeof t === 'string' ? t : t.type
  return name === 'string' ? STRING : name === 'long' ? LONG : name === 'boolean' ? BOOLEAN : -1
}

/** How a reader takes a record of these fields: each field's kind and slot, and whether it can. */
export function readerLayout(fields: ReadonlyArray<{ name: string; type: AvscType }>) {
  const layout = fields.map((f) => ({ name: f.name, kind: kindOf(f.type) }))
  // Strings are kept as [start, end) of their bytes, numbers as values: each field has a slot of its kind.
  const isText = (k: number) => k === STRING || k === OPTIONAL_STRING
  const slotsOf = (text: boolean) => layout.filter((f) => isText(f.kind) === text).map((f) => f.name)
  const texts = slotsOf(true)
  const numbers = slotsOf(false)
  const kindOfField = (name: string) => layout.find((f) => f.name === name)?.kind
  return {
    texts,
    numbers,
    kinds: Uint8Array.from(layout, (f) => f.kind),
    slots: Uint8Array.from(layout, (f) => (isText(f.kind) ? texts : numbers).indexOf(f.name)),
    // False when a field is of a type the reader does not take, or a field transcode() reads is gone or
    // changed its kind: then every record goes the general path.
    readable:
      layout.every((f, i) => f.kind >= 0 && (f.kind !== LAST_NULL || i === layout.length - 1)) &&
      Object.entries(READS).every(([name, kinds]) => (kinds as readonly number[]).includes(kindOfField(name) ?? -1)),
  }
}

/** The fields transcode() reads, with the kinds it reads them as. */
const READS = {
  event_id: [STRING],
  account_id: [STRING],
  environment: [STRING],
  key_id: [STRING],
  event: [STRING],
  user_id: [STRING],
  user_email: [OPTIONAL_STRING],
  user_traits: [OPTIONAL_STRING],
  properties: [STRING],
  context: [STRING],
  ip: [OPTIONAL_STRING],
  user_agent: [OPTIONAL_STRING],
  message_id: [OPTIONAL_STRING],
  anonymous_id: [OPTIONAL_STRING],
  timestamp: [LONG],
  original_timestamp: [OPTIONAL_LONG],
  received_at: [LONG],
  sent_at: [OPTIONAL_LONG],
  timestamp_flagged: [BOOLEAN],
} as const satisfies Partial<Record<keyof EventRecord, readonly number[]>>

const LAYOUT = readerLayout(loadAvsc('Event').fields as Array<{ name: string; type: AvscType }>)
const text = (name: keyof typeof READS) => LAYOUT.texts.indexOf(name)
const number = (name: keyof typeof READS) => LAYOUT.numbers.indexOf(name)

const EVENT_ID = text('event_id')
const ACCOUNT_ID = text('account_id')
const ENVIRONMENT = text('environment')
const KEY_ID = text('key_id')
const EVENT = text('event')
const USER_ID = text('user_id')
const USER_EMAIL = text('user_email')
const USER_TRAITS = text('user_traits')
const PROPERTIES = text('properties')
const CONTEXT = text('context')
const IP = text('ip')
const USER_AGENT = text('user_agent')
const MESSAGE_ID = text('message_id')
const ANONYMOUS_ID = text('anonymous_id')
const TIMESTAMP = number('timestamp')
const ORIGINAL_TIMESTAMP = number('original_timestamp')
const RECEIVED_AT = number('received_at')
const SENT_AT = number('sent_at')
const TIMESTAMP_FLAGGED = number('timestamp_flagged')
const { kinds: KINDS, slots: SLOTS, readable: READABLE } = LAYOUT
/** The text slots of the sealed personal fields, in their packed order (A18); -1 if one is not a text here. */
const PERSONAL_SLOTS = PERSONAL_FIELDS.event.map((name) => LAYOUT.texts.indexOf(name))
/** Personal fields the schema requires (user_id, properties, context): a null one goes the general path. */
const REQUIRED_SLOTS = new Set(PERSONAL_SLOTS.filter((slot) => LAYOUT.kinds[LAYOUT.slots.indexOf(slot)] === STRING))
const SEALED_READABLE = READABLE && PERSONAL_SLOTS.every((slot) => slot >= 0)

/** A21: opens a sealed body of the stream format with a held key: its plaintext, or undefined. */
export interface StreamBodies {
  /** The body is `record`'s bytes [start, end). */
  streamBody(keyId: string, record: Buffer, start: number, end: number): Buffer | undefined
}

/** An instant's two columns and the ms column after them (COMMON_COLUMNS, rows.ts): `\t<ms as DateTime
 *  text>\t<ms>\t<then>`; the offset after them. */
function writeInstant(dst: Buffer, o: number, ms: number, then: number): number {
  dst[o++] = TAB
  o = writeDateTime(dst, o, ms)
  dst[o++] = TAB
  o = writeInteger(dst, o, ms)
  dst[o++] = TAB
  return writeInteger(dst, o, then)
}

/** String(n)'s bytes at `o` for an integer below 2^52 in magnitude (readLong's); the offset after them. */
function writeInteger(dst: Buffer, o: number, n: number): number {
  if (n < 0) {
    dst[o++] = 45 // -
    n = -n
  }
  let digits = 1
  for (let rest = Math.floor(n / 10); rest > 0; rest = Math.floor(rest / 10)) digits++
  const end = o + digits
  for (let i = end - 1; i >= o; i--) {
    const q = Math.floor(n / 10)
    dst[i] = 48 + n - q * 10
    n = q
  }
  return end
}

// Below 2^52: exactly what avsc reads as a safe long. Anything larger goes the general way.
const LONG_LIMIT = 2 ** 52

const TAB = 9
// The events row's string columns around its times (EVENT_COLUMNS, rows.ts); user_email is the
// record's, else the traits' (H10).
const ROW_FIELDS_BEFORE_TIMES = [EVENT_ID, ACCOUNT_ID, ENVIRONMENT, KEY_ID, USER_ID]
const ROW_FIELDS_AFTER_TIMES = [
  EVENT,
  PROPERTIES,
  CONTEXT,
  IP,
  USER_AGENT,
  MESSAGE_ID,
  USER_EMAIL,
  USER_TRAITS,
  ANONYMOUS_ID,
]

const isInstant = (ms: number) => ms >= 0 && ms <= MAX_MS

/**
 * Reads Event records' bytes into rows. Its fields hold the record being read ([start, end) of each
 * field in its buffer; start -1 for a null): it is synchronous, so one instance serves every record
 * of its owner (the projection pipeline has one), and nothing is allocated per record for them.
 */
export class EventTranscoder {
  private readonly starts = new Int32Array(LAYOUT.texts.length)
  private readonly ends = new Int32Array(LAYOUT.texts.length)
  /** The numbers and the boolean (1 or 0) of the record being read; null for a null. */
  private readonly numbers: Array<number | null> = new Array(LAYOUT.numbers.length).fill(null)
  /** The buffer each text field is in: the record's, or the opened plaintext for a personal field. */
  private readonly sources: Buffer[] = new Array(LAYOUT.texts.length).fill(Buffer.alloc(0))
  private src: Buffer = Buffer.alloc(0)
  private pos = 0
  /** The sealed `enc` of the record being read: its key id's and body's [start, end); -1 when in clear. */
  private readonly enc = new Int32Array(4)
  private bodies: StreamBodies | undefined

  /**
   * The prepared record of an Event in the Confluent wire format (its first 5 bytes are the schema
   * id, which the caller has checked is the reader's Event schema), its rows appended to the arenas;
   * or null, nothing appended, when the general path must take it.
   */
  transcode(
    value: Buffer,
    arenas: RowArenas,
    origin: RecordOrigin | null,
    bodies?: StreamBodies,
  ): PreparedRecord<EventRecord> | null {
    this.src = value
    this.pos = 5
    this.enc[0] = -1
    this.bodies = bodies
    if (!READABLE || !this.readEvent() || !this.environmentOk()) return null
    const opened = this.enc[0]! < 0 ? 0 : this.openSealed()
    if (opened < 0) return null
    const n = this.numbers
    const f = {
      timestamp: n[TIMESTAMP]!,
      originalTimestamp: n[ORIGINAL_TIMESTAMP]!,
      receivedAt: n[RECEIVED_AT]!,
      sentAt: n[SENT_AT]!,
      flagged: n[TIMESTAMP_FLAGGED] === 1,
    }
    if (!isInstant(f.timestamp) || !isInstant(f.receivedAt)) return null
    const eventId = this.text(EVENT_ID)!
    const accountId = this.text(ACCOUNT_ID)!
    const traitsJson = this.text(USER_TRAITS)
    let emailFromTraits = ''
    let traitLines = ''
    if (traitsJson !== null) {
      try {
        const userId = this.text(USER_ID)!
        const environment = this.text(ENVIRONMENT) as 'live' | 'test'
        for (const v of traitValues(
          accountId,
          userId,
          traitsJson,
          traitVersionMs(f.timestamp, f.receivedAt),
          environment,
          eventId,
        ))
          traitLines += tsvLine(v, TRAIT_COLUMNS, eventId)
        if (this.starts[USER_EMAIL]! < 0 || this.ends[USER_EMAIL] === this.starts[USER_EMAIL]) {
          emailFromTraits = traitEmail(traitsJson, eventId)
          // The general path writes it through tsvLine: escaped, and refused if not well-formed.
          emailFromTraits = tsvLine([emailFromTraits], ['user_email'], eventId).slice(0, -1)
        }
      } catch {
        return null
      }
    }

    // The events row, in EVENT_COLUMNS order (rows.ts), written past the arena's end and kept only
    // when every field could be written. Each field at most doubles; 256 bytes cover the numbers.
    const rows = arenas.rows
    const start = rows.reserve(2 * (value.length + opened) + 3 * emailFromTraits.length + 256)
    const dst = rows.chunk!
    let o = start
    for (const field of ROW_FIELDS_BEFORE_TIMES) {
      if (field !== EVENT_ID) dst[o++] = TAB
      if ((o = this.copyField(field, dst, o)) < 0) return null
    }
    // Written as bytes, as `'\t' + dateTimeText(timestamp) + '\t' + timestamp + ...` would be: the strings
    // that text took (a dozen a record) were the replay's largest garbage after the records' own.
    o = writeInstant(dst, o, f.timestamp, f.originalTimestamp ?? 0)
    o = writeInstant(dst, o, f.receivedAt, f.sentAt ?? 0)
    dst[o++] = TAB
    dst[o++] = f.flagged ? 49 : 48
    for (const field of ROW_FIELDS_AFTER_TIMES) {
      dst[o++] = TAB
      if (field === USER_EMAIL && emailFromTraits !== '') o += dst.write(emailFromTraits, o, 'utf8')
      else if ((o = this.copyField(field, dst, o)) < 0) return null
    }
    dst[o++] = 10
    rows.pos = o

    const p: PreparedRecord<EventRecord> = {
      event_id: eventId,
      account_id: accountId,
      message_id: this.text(MESSAGE_ID),
      timestamp: f.timestamp,
      received_at: f.receivedAt,
      rowChunk: dst,
      rowStart: start,
      rowEnd: o,
      traitChunk: null,
      traitStart: 0,
      traitEnd: 0,
      origin,
      record: null,
    }
    if (traitLines !== '') {
      p.traitStart = arenas.traits.append(traitLines)
      p.traitChunk = arenas.traits.chunk
      p.traitEnd = arenas.traits.pos
    }
    return p
  }

  /** A zigzag varint long (Avro int and long), or NaN when it is not a long this path takes. */
  private readLong(): number {
    let n = 0
    let k = 0
    let b: number
    do {
      b = this.src[this.pos++]!
      n |= (b & 0x7f) << k
      k += 7
    } while (b & 0x80 && k < 28)
    if (!(b & 0x80)) return (n >>> 1) ^ -(n & 1)
    // More than 28 bits: float arithmetic, as avsc does, up to 10 bytes.
    let f = n >>> 0
    let fk = 268435456
    let bytes = 4
    do {
      if (++bytes > 10) return NaN
      b = this.src[this.pos++]!
      f += (b & 0x7f) * fk
      fk *= 128
    } while (b & 0x80)
    const v = (f % 2 ? -(f + 1) : f) / 2
    return Math.abs(v) < LONG_LIMIT ? v : NaN
  }

  private readString(field: number): boolean {
    const len = this.readLong()
    if (!(len >= 0)) return false
    this.starts[field] = this.pos
    this.sources[field] = this.src
    this.pos += len
    this.ends[field] = this.pos
    return this.pos <= this.src.length
  }

  /** A21: `enc` set (union index 1): its key id and body, kept as positions; taken only with `bodies`. */
  private readSealed(): boolean {
    if (this.bodies === undefined || !SEALED_READABLE) return false
    this.pos++
    for (let i = 0; i < 4; i += 2) {
      const len = this.readLong()
      if (!(len >= 0)) return false
      this.enc[i] = this.pos
      this.pos += len
      this.enc[i + 1] = this.pos
    }
    return this.pos <= this.src.length
  }

  /** Opens the sealed body and points the personal fields into it; its length, or -1 for the general path. */
  private openSealed(): number {
    // A27: read by index (destructuring a typed array goes through its iterator, a record).
    const enc = this.enc
    let plain: Buffer | undefined
    try {
      plain = this.bodies!.streamBody(this.src.toString('utf8', enc[0], enc[1]), this.src, enc[2]!, enc[3]!)
    } catch {
      return -1
    }
    return plain !== undefined && this.readPacked(plain) ? plain.length : -1
  }

  /** The packed fields (field-text.ts: `-`, or `<length>:<text>`) of an ASCII plaintext; false otherwise. */
  private readPacked(plain: Buffer): boolean {
    // Node's native check: a loop over every byte in JS cost about ten times as much (BENCHMARKS.md, A27).
    if (!isAscii(plain)) return false
    let at = 0
    for (const field of PERSONAL_SLOTS) {
      this.sources[field] = plain
      if (at >= plain.length || plain[at] === 45 /* - */) {
        if (REQUIRED_SLOTS.has(field)) return false
        this.starts[field] = -1
        this.ends[field] = -1
        if (at < plain.length) at++
        continue
      }
      let len = 0
      for (let b = plain[at]!; b >= 48 && b <= 57; b = plain[++at]!) len = len * 10 + b - 48
      if (plain[at] !== 58 /* : */ || at + 1 + len > plain.length) return false
      this.starts[field] = at + 1
      at += 1 + len
      this.ends[field] = at
    }
    return true
  }

  /** A ["null", "string"] union. */
  private readOptionalString(field: number): boolean {
    const index = this.readLong()
    if (index === 0) {
      this.starts[field] = -1
      this.ends[field] = -1
      return true
    }
    return index === 1 && this.readString(field)
  }

  /** A ["null", "long"] union: the value, null, or NaN when it is neither. */
  private readOptionalLong(): number | null {
    const index = this.readLong()
    return index === 0 ? null : index === 1 ? this.readLong() : NaN
  }

  /** Reads the fields in the schema's order; false when the bytes are not an Event as this path takes it. */
  private readEvent(): boolean {
    for (let i = 0; i < KINDS.length; i++) {
      const slot = SLOTS[i]!
      switch (KINDS[i]) {
        case STRING:
          if (!this.readString(slot)) return false
          break
        case OPTIONAL_STRING:
          if (!this.readOptionalString(slot)) return false
          break
        case LONG:
          this.numbers[slot] = this.readLong()
          break
        case OPTIONAL_LONG:
          this.numbers[slot] = this.readOptionalLong()
          break
        case LAST_NULL:
          // A15: a record written before `enc` ends before it; a later one has `enc` null (one zero
          // byte). A sealed record (enc set, union index 1) is read here only to be opened (A21).
          if (this.pos < this.src.length && this.src[this.pos] === 0) this.pos++
          else if (this.pos < this.src.length && this.src[this.pos] === 2 && !this.readSealed()) return false
          break
        default:
          if (this.pos >= this.src.length) return false
          this.numbers[slot] = this.src[this.pos++] !== 0 ? 1 : 0
      }
    }
    // avsc refuses trailing bytes and a record that ends early.
    if (this.pos !== this.src.length) return false
    for (const v of this.numbers) if (Number.isNaN(v)) return false
    return true
  }

  private text(field: number): string | null {
    return this.starts[field]! < 0 ? null : this.sources[field]!.toString('utf8', this.starts[field], this.ends[field])
  }

  /** Whether the environment field is `live` or `test` (rows.ts refuses any other). */
  private environmentOk(): boolean {
    const s = this.starts[ENVIRONMENT]!
    if (this.ends[ENVIRONMENT]! - s !== 4) return false
    const word = this.src.readUInt32BE(s)
    return word === 0x6c697665 /* live */ || word === 0x74657374 /* test */
  }

  /**
   * Copies a field's bytes to `dst` at `o` with TabSeparated's escapes; returns the next offset, or
   * -1 when the field is not well-formed UTF-8. A null field writes nothing ('' in the row).
   */
  private copyField(field: number, dst: Buffer, o: number): number {
    const s = this.starts[field]!
    if (s < 0) return o
    const e = this.ends[field]!
    const src = this.sources[field]!
    let high = 0
    for (let i = s; i < e; i++) {
      const b = src[i]!
      high |= b
      if (b === 92) {
        dst[o++] = 92
        dst[o++] = 92
      } else if (b === 9) {
        dst[o++] = 92
        dst[o++] = 116
      } else if (b === 10) {
        dst[o++] = 92
        dst[o++] = 110
      } else if (b === 13) {
        dst[o++] = 92
        dst[o++] = 114
      } else dst[o++] = b
    }
    return high & 0x80 && !isUtf8(src.subarray(s, e)) ? -1 : o
  }
}
