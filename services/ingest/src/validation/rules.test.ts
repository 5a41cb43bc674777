// The validator (validate.ts) and the TypeBox schemas (schemas.ts, published as /openapi.json) read
// one table of rules (rules.ts, H64). Here every rule of that table puts a value just inside and
// just outside its bound through the validator, TypeBox's check of the schema, and a JSON Schema
// validator (ajv, counting characters and reading propertyNames as API fuzzers do) on the published
// document, in every field it governs: if any of them stops reading the table, or reads it
// differently, a case below disagrees.
import t from 'tap'
import * as AjvModule from 'ajv'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { openApiDocument } from '../http/openapi.js'
import { BODY_RULES, CONTROL_CHAR_CLASS, type StringRule } from './rules.js'
import { BatchBodySchema, EventBodySchema } from './schemas.js'
import { validateBatch, validateSingle } from './validate.js'

const EventBody = TypeCompiler.Compile(EventBodySchema)
const BatchBody = TypeCompiler.Compile(BatchBodySchema)
// ajv is CommonJS: under NodeNext its class is the default export's default.
const Ajv = AjvModule.default.default ?? AjvModule.default
const ajv = new Ajv({ strict: false })
ajv.addSchema(openApiDocument(), 'openapi.json')
const published = (name: string) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!
const PublishedEvent = published('EventBody')
const PublishedBatch = published('BatchBody')
const SENT_AT = '2024-01-01T00:00:00Z'

type Obj = Record<string, unknown>
interface Verdicts {
  validator: boolean
  published: boolean
  /** Left out where TypeBox's check cannot judge: it ignores propertyNames and counts UTF-16 units. */
  typebox?: boolean
}

const agree = (valid: boolean, typebox = true): Verdicts =>
  typebox ? { validator: valid, published: valid, typebox: valid } : { validator: valid, published: valid }

/** `base` with `value` at `path` (segments joined by /). */
function withValue(base: Obj, path: string, value: unknown): Obj {
  const out = structuredClone(base)
  const keys = path.split('/')
  let o = out
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Obj
  o[keys.at(-1)!] = value
  return out
}

function single(body: Obj, typebox = true): Verdicts {
  const v: Verdicts = { validator: validateSingle(body).ok, published: PublishedEvent(body) as boolean }
  if (typebox) v.typebox = EventBody.Check(body)
  return v
}

function batch(body: Obj, typebox = true): Verdicts {
  const r = validateBatch(body)
  const v: Verdicts = { validator: r.ok && r.items.every((i) => i.ok), published: PublishedBatch(body) as boolean }
  if (typebox) v.typebox = BatchBody.Check(body)
  return v
}

const batchItem = (item: Obj, typebox = true) => batch({ sent_at: SENT_AT, events: [item] }, typebox)

const EVENT = { event: 'x', user: { id: 'u' } }
const BATCH_EVENT = { type: 'event', event: 'x', user: { id: 'u' } }
const IDENTIFY = { type: 'identify', user: { id: 'u' } }

/** The string fields of each rule, in a single event body and in batch items. */
const STRING_FIELDS: Record<string, { single: string[]; batch: [Obj, string][] }> = {
  name: {
    single: ['event', 'user/id', 'anonymous_id'],
    batch: [
      [BATCH_EVENT, 'event'],
      [{ type: 'event', user: { id: 'u' } }, 'name'],
      [BATCH_EVENT, 'user/id'],
      [IDENTIFY, 'user/id'],
      [IDENTIFY, 'anonymous_id'],
    ],
  },
  email: { single: ['user/email'], batch: [[IDENTIFY, 'user/email']] },
  messageId: { single: ['message_id'], batch: [[BATCH_EVENT, 'message_id']] },
  timestamp: { single: ['timestamp'], batch: [[IDENTIFY, 'timestamp']] },
}

/** A value of `length` characters that meets the rest of the rule. */
const ofLength = (rule: string, length: number) =>
  rule === 'email' ? `${'a'.repeat(Math.max(0, length - 5))}@x.io`.slice(-length) : 'a'.repeat(length)

/**
 * The characters at both ends of each range of a character class, and their neighbours outside
 * it: the class is the one the validator's and the schemas' patterns are built from.
 */
function classBoundaries(cls: string): { inside: string[]; outside: string[] } {
  const code = (s: string) => String.fromCharCode(Number.parseInt(s.slice(2), 16))
  const inside: string[] = []
  const outside: string[] = []
  for (const [, lo, hi] of cls.matchAll(/(\\(?:x[0-9A-F]{2}|u[0-9A-F]{4}))-(\\(?:x[0-9A-F]{2}|u[0-9A-F]{4}))/g)) {
    const a = code(lo!).charCodeAt(0)
    const b = code(hi!).charCodeAt(0)
    inside.push(String.fromCharCode(a), String.fromCharCode(b))
    if (a > 0) outside.push(String.fromCharCode(a - 1))
    outside.push(String.fromCharCode(b + 1))
  }
  // A neighbour of one range may open the next (0x1F+1 is allowed, 0x7F-1 too).
  return { inside, outside: outside.filter((c) => !new RegExp(`[${cls}]`).test(c)) }
}

/**
 * Values just inside (true) and just outside (false) a string rule. A batch item's time is checked
 * after H13's correction by sent_at, which no pattern can express (timestamp.ts): the epoch's
 * bound is tried on /v1/event alone.
 */
function cases(rule: string, r: StringRule, inBatch: boolean): [string, unknown, boolean][] {
  const out: [string, unknown, boolean][] = []
  if (r.maxLength !== undefined) {
    out.push([`${r.maxLength} characters`, ofLength(rule, r.maxLength), true])
    out.push([`${r.maxLength + 1} characters`, ofLength(rule, r.maxLength + 1), false])
  }
  if (r.minLength !== undefined) {
    out.push([`${r.minLength} characters`, ofLength(rule, r.minLength), true])
    out.push([`${r.minLength - 1} characters`, ofLength(rule, r.minLength - 1), false])
  }
  if (rule === 'name') {
    const b = classBoundaries(CONTROL_CHAR_CLASS)
    for (const c of b.inside) out.push([`U+${c.charCodeAt(0).toString(16)}`, `a${c}b`, false])
    for (const c of b.outside) out.push([`U+${c.charCodeAt(0).toString(16)}`, `a${c}b`, true])
  }
  if (rule === 'email') {
    out.push(['empty means none', '', true], ['no @', 'ax.io', false], ['two @', 'a@b@x.io', false])
    out.push(['a space', 'a b@x.io', false], ['U+3000', 'a\u3000b@x.io', false], ['U+2069', 'a@x.io\u2069', false])
    out.push(['nothing before @', '@x.io', false], ['nothing after @', 'a@', false])
  }
  if (rule === 'timestamp') {
    if (!inBatch)
      out.push(['the epoch', '1970-01-01T00:00:00Z', true], ['before the epoch', '1969-12-31T23:59:59Z', false])
    out.push(['29 February of a leap year', '2024-02-29T00:00:00Z', true])
    out.push(['29 February of another year', '2023-02-29T00:00:00Z', false])
    out.push(['a 9-digit fraction', '2024-01-01T00:00:00.123456789+01:00', true])
    out.push(['a 10-digit fraction', '2024-01-01T00:00:00.1234567890Z', false])
    out.push(['offset 23:59', '2024-01-01T12:00:00+23:59', true], ['offset 24:00', '2024-01-01T12:00:00+24:00', false])
    out.push(['a date alone', '2024-01-01', false], ['a leap second', '2024-06-30T23:59:60Z', false])
  }
  return out
}

t.test('every string rule: the validator and the published schema agree just inside and outside', async (t) => {
  for (const [rule, fields] of Object.entries(STRING_FIELDS)) {
    const r = BODY_RULES[rule as keyof typeof BODY_RULES] as StringRule
    for (const [label, value, valid] of cases(rule, r, false)) {
      for (const path of fields.single)
        t.same(single(withValue(EVENT, path, value)), agree(valid), `/v1/event ${path}: ${label}`)
    }
    for (const [label, value, valid] of cases(rule, r, true)) {
      for (const [base, path] of fields.batch)
        t.same(batchItem(withValue(base, path, value)), agree(valid), `${base.type} ${path}: ${label}`)
    }
  }
})

t.test('every rule of the table has cases above or below', async (t) => {
  const covered = [...Object.keys(STRING_FIELDS), 'sentAt', 'traits', 'batch', 'event']
  t.same(Object.keys(BODY_RULES).sort(), covered.sort())
})

t.test('sent_at: any year, a calendar date', async (t) => {
  const events = [BATCH_EVENT]
  for (const [sentAt, valid] of [
    ['0000-01-01T00:00:00Z', true],
    ['1969-12-31T23:59:59Z', true],
    ['2000-02-29T00:00:00Z', true],
    ['1900-02-29T00:00:00Z', false],
    ['2024-13-01T00:00:00Z', false],
  ] as const) {
    t.same(batch({ sent_at: sentAt, events }), agree(valid), sentAt)
  }
})

t.test('traits: key count and key length, on user.traits and an identify’s traits', async (t) => {
  const { maxKeys, maxKeyLength } = BODY_RULES.traits
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
  for (const [label, traits, valid] of [
    [`${maxKeys} keys`, keys(maxKeys), true],
    [`${maxKeys + 1} keys`, keys(maxKeys + 1), false],
    [`a key of ${maxKeyLength}`, { ['k'.repeat(maxKeyLength)]: 1 }, true],
    [`a key of ${maxKeyLength + 1}`, { ['k'.repeat(maxKeyLength + 1)]: 1 }, false],
  ] as const) {
    // TypeBox ignores propertyNames, so only the published document judges key lengths.
    const typebox = !label.startsWith('a key')
    const expected = agree(valid, typebox)
    t.same(single(withValue(EVENT, 'user/traits', traits), typebox), expected, `/v1/event user.traits: ${label}`)
    t.same(batchItem(withValue(IDENTIFY, 'traits', traits), typebox), expected, `identify traits: ${label}`)
    t.same(batchItem(withValue(IDENTIFY, 'user/traits', traits), typebox), expected, `identify user.traits: ${label}`)
  }
})

t.test('batch: item count', async (t) => {
  const { minItems, maxItems } = BODY_RULES.batch
  for (const [n, valid] of [
    [minItems - 1, false],
    [minItems, true],
    [maxItems, true],
    [maxItems + 1, false],
  ] as const) {
    t.same(
      batch({ sent_at: SENT_AT, events: Array.from({ length: n }, () => BATCH_EVENT) }),
      agree(valid),
      `${n} items`,
    )
  }
})

// JSON Schema cannot say "at most N bytes of JSON" or "nested at most N levels", so the published
// schema states these two in its descriptions, from the same table, and the validator enforces them.
t.test('event: size and depth, enforced by the validator and stated by the schema', async (t) => {
  const { maxBytes, maxDepth } = BODY_RULES.event
  const sized = (bytes: number) => {
    const body = { ...EVENT, properties: { p: '' } }
    const fill = bytes - Buffer.byteLength(JSON.stringify(body))
    return { ...EVENT, properties: { p: 'a'.repeat(fill) } }
  }
  t.ok(validateSingle(sized(maxBytes)).ok, `${maxBytes} bytes`)
  t.notOk(validateSingle(sized(maxBytes + 1)).ok, `${maxBytes + 1} bytes`)
  const nested = (levels: number) => {
    let v: unknown = 1
    for (let i = 0; i < levels; i++) v = { a: v }
    return { ...EVENT, properties: v }
  }
  t.ok(validateSingle(nested(maxDepth)).ok, `${maxDepth} levels`)
  t.notOk(validateSingle(nested(maxDepth + 1)).ok, `${maxDepth + 1} levels`)
  t.match(JSON.stringify(EventBodySchema), `at most ${maxDepth} levels`)
})

// Lengths count characters (code points), as JSON Schema does; TypeBox's own check counts UTF-16
// units, so it is left out here.
t.test('lengths are in characters: a name of 255 astral characters is accepted', async (t) => {
  const max = BODY_RULES.name.maxLength
  t.same(single(withValue(EVENT, 'user/id', '\u{1F600}'.repeat(max)), false), agree(true, false))
  t.same(single(withValue(EVENT, 'user/id', '\u{1F600}'.repeat(max + 1)), false), agree(false, false))
})
