// The transcoder against the general path (avsc's decode, then prepareEvent): the same row bytes,
// the same trait rows and the same H16 key for every record it takes, and nothing appended for a
// record it leaves to the general path.
import t from 'tap'
import avro from 'avsc'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAvsc } from '../../../../schemas/codec.js'
import type { EventRecord } from '../../../../schemas/records.js'
import { makeEvent } from '../../../../test/support/clickhouse-helpers.js'
import { EventTranscoder, readerLayout, type AvscType } from './event-transcoder.js'
import { newArenas, prepareEvent, type PreparedRecord, type RowArenas } from './prepared.js'
import {
  decryptRecord,
  encryptPersonalFields,
  KeyStream,
  newDataKey,
  PERSONAL_FIELDS,
} from '../../../shared/src/privacy/crypto/index.js'
import { RecordOpener } from '../privacy/record-opener.js'

const type = avro.Type.forSchema(loadAvsc('Event') as any)
const HISTORY = join(import.meta.dirname, '../../../../schemas/avro/history')
const transcoder = new EventTranscoder()
const transcodeEvent = (value: Buffer, arenas: RowArenas, origin: null) => transcoder.transcode(value, arenas, origin)
const wire = (r: EventRecord) => Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), type.toBuffer(r)])

// Deterministic pseudo-random choices, so a failure names a reproducible case.
let seed = 42
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed % n
}
const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!

const TEXTS = [
  '',
  'plain',
  'tab\there',
  'new\nline',
  'cr\rlf\r\n',
  'back\\slash \\t not a tab',
  'é ü ß',
  '日本語',
  'emoji 🎉 pair',
  '"quoted"',
  '\u0000nul',
  'a'.repeat(300),
]
const JSON_TEXTS = [
  '{}',
  '{"path":"/a\\tb","n":1}',
  '{"s":"line\\nbreak \\"q\\" \\\\ back"}',
  '{"u":"é🎉","deep":{"x":[1,2,{"y":null}]}}',
  JSON.stringify({ raw: 'tab\tnew\nline' }),
]
const TRAITS: Array<string | null> = [
  null,
  '{}',
  '{"plan":"pro","seats":3}',
  '{"email":"t@example.com","name":"T\\tab"}',
  '{"email":"é\\nx@example.com"}',
  '{"email":7}',
  '[1,2]',
  '"text"',
  'not json',
  '{"\\ud800":1}',
  '{"k":"\\ud800"}',
  '  ',
  '{"email":"\\ud800@x"}',
]
const TIMES = [
  0,
  1,
  59_999,
  36_000_000,
  1_732_300_000_123,
  1_732_300_000_999,
  Date.UTC(2026, 11, 31, 23, 59, 59, 999),
  Date.UTC(2105, 11, 31, 23, 59, 59, 999),
]

// Values for the fields whose meaning the rows depend on; every other field of the schema gets values
// of its Avro type, so a field added to event.avsc is tried here without a change to this test.
const BY_NAME: Record<string, readonly unknown[]> = {
  event_id: ['0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'ev\tid', 'é-id'],
  account_id: ['acc_1', 'acc é', 'acc\\x'],
  environment: ['live', 'test'],
  user_email: [null, '', 'u@example.com', 'u\t@x'],
  user_traits: TRAITS,
  timestamp: TIMES,
  original_timestamp: [null, 0, -5, 9, 10, 1_732_300_000_000, 2 ** 45, 2 ** 52 - 1, -(2 ** 52 - 1)],
  received_at: TIMES,
  sent_at: [null, 1_732_299_999_000, -1, -10, 99, 100],
  properties: JSON_TEXTS,
  context: [...JSON_TEXTS, ...TEXTS],
  ip: [null, '', '203.0.113.7', '2001:db8::1'],
  user_agent: [null, '', 'Mozilla/5.0 (X11)', 'agent\twith tab'],
  // A15: this path takes a record in clear (enc null); a sealed one goes the general path.
  enc: [null],
}
const BY_TYPE: Record<string, readonly unknown[]> = {
  string: TEXTS,
  'null,string': [null, ...TEXTS],
  long: TIMES,
  'null,long': [null, ...TIMES],
  boolean: [true, false],
}
const FIELDS = loadAvsc('Event').fields as Array<{ name: string; type: AvscType }>
const typeName = (t: AvscType): string =>
  Array.isArray(t) ? t.map(typeName).join(',') : typeof t === 'string' ? t : t.type

function randomEvent(): EventRecord {
  const r: Record<string, unknown> = {}
  for (const f of FIELDS) r[f.name] = pick((BY_NAME[f.name] ?? BY_TYPE[typeName(f.type)])!)
  return r as unknown as EventRecord
}

t.test('the reader takes its layout from event.avsc, and takes no record of a layout it cannot read', async (t) => {
  t.ok(readerLayout(FIELDS).readable, 'the schema as it is')
  // Before the last field, enc (A15), which this path takes only as the last.
  const added = [...FIELDS.slice(0, -1), { name: 'extra', type: ['null', 'string'] as AvscType }, FIELDS.at(-1)!]
  t.ok(readerLayout(added).readable, 'a field added')
  t.notOk(readerLayout([...FIELDS, { name: 'extra', type: ['null', 'string'] }]).readable, 'a field after enc')
  const changed = (name: string, type: AvscType) => FIELDS.map((f) => (f.name === name ? { name, type } : f))
  t.notOk(readerLayout([...FIELDS, { name: 'n', type: 'int' }]).readable, 'a field of a type it does not read')
  t.notOk(readerLayout(changed('timestamp', ['null', 'long'])).readable, 'a required time made optional')
  t.notOk(readerLayout(changed('user_email', 'string')).readable, 'an optional text made required')
  t.notOk(readerLayout(FIELDS.filter((f) => f.name !== 'ip')).readable, 'a field it reads removed')
  for (const f of FIELDS) t.ok(BY_NAME[f.name] ?? BY_TYPE[typeName(f.type)], `random values for ${f.name}`)
})

const rowsOf = (p: PreparedRecord) => p.rowChunk!.subarray(p.rowStart, p.rowEnd).toString('utf8')
const traitsOf = (p: PreparedRecord) =>
  p.traitChunk === null ? '' : p.traitChunk.subarray(p.traitStart, p.traitEnd).toString('utf8')
const positions = (a: RowArenas) => [a.rows.chunk, a.rows.pos, a.traits.chunk, a.traits.pos]

t.test('the same rows, trait rows and H16 key as the general path, for 5,000 random events', async (t) => {
  const fast = newArenas(64 * 1024)
  const general = newArenas(64 * 1024)
  let taken = 0
  let generalFailed = 0
  for (let i = 0; i < 5_000; i++) {
    const r = randomEvent()
    const bytes = wire(r)
    let expected: PreparedRecord | null = null
    try {
      expected = prepareEvent(type.fromBuffer(bytes.subarray(5)), general, null, false)
    } catch {
      generalFailed++
    }
    const before = positions(fast)
    const got = transcodeEvent(bytes, fast, null)
    if (got === null) {
      t.same(positions(fast), before, 'nothing appended when left to the general path')
      // Valid UTF-8 throughout: only records the general path refuses are left to it.
      if (expected !== null) t.fail(`left to the general path: ${JSON.stringify(r)}`)
      continue
    }
    if (expected === null) {
      t.fail(`taken, but the general path refuses it: ${JSON.stringify(r)}`)
      continue
    }
    taken++
    if (rowsOf(got) !== rowsOf(expected))
      t.fail(`row differs for ${JSON.stringify(r)}:\n${rowsOf(got)}\n${rowsOf(expected)}`)
    if (traitsOf(got) !== traitsOf(expected)) t.fail(`trait rows differ for ${JSON.stringify(r)}`)
    t.same(
      { ...got, rowChunk: null, traitChunk: null, rowStart: 0, rowEnd: 0, traitStart: 0, traitEnd: 0 },
      { ...expected, rowChunk: null, traitChunk: null, rowStart: 0, rowEnd: 0, traitStart: 0, traitEnd: 0 },
      'same key',
      { diagnostic: false },
    )
  }
  t.ok(taken > 3_000, `${taken} taken by the transcoder, ${generalFailed} refused by the general path`)
  t.ok(generalFailed > 0, 'some records the general path refuses were tried')
})

t.test('bytes the general path would decode differently or refuse are left to it', async (t) => {
  const arenas = newArenas()
  const base = makeEvent({ event: 'XX', properties: '{"a":"YY"}', user_traits: '{"plan":"pro"}' })
  const ok = wire(base)
  t.not(transcodeEvent(ok, arenas, null), null, 'the unchanged record is taken')
  const at = (s: string) => ok.indexOf(Buffer.from(s))
  const patched = (s: string, bytes: number[]) => {
    const b = Buffer.from(ok)
    b.set(bytes, at(s))
    return b
  }
  const cases: Array<[string, Buffer]> = [
    ['an invalid UTF-8 sequence in the event name', patched('XX', [0xc3, 0x28])],
    ['a truncated record', ok.subarray(0, ok.length - 3)],
    ['trailing bytes', Buffer.concat([ok, Buffer.from([0])])],
    ['an unknown environment', wire({ ...base, environment: 'prod' as never })],
    ['a time past 2105', wire({ ...base, timestamp: Date.UTC(2106, 0, 1) })],
    ['a negative received_at', wire({ ...base, received_at: -1 })],
    ['a trait key with an unpaired surrogate', wire({ ...base, user_traits: '{"\\udc00":1}' })],
    ['traits that are not JSON', wire({ ...base, user_traits: '{' })],
  ]
  // An encoded surrogate (CESU-8) is not UTF-8: avsc would decode it as U+FFFD.
  const cesu = Buffer.from(wire({ ...base, properties: '{"a":"abc"}' }))
  cesu.set([0xed, 0xa0, 0x80], cesu.indexOf(Buffer.from('abc')))
  cases.push(['an encoded surrogate in the properties', cesu])
  for (const [name, bytes] of cases) {
    const before = positions(arenas)
    t.equal(transcodeEvent(bytes, arenas, null), null, name)
    t.same(positions(arenas), before, `${name}: nothing appended`)
  }
  // A long past 2^52 (the general path's avsc refuses those past 2^53): left to it.
  const big = wire({ ...base, original_timestamp: 2 ** 52 + 2 })
  t.equal(transcodeEvent(big, arenas, null), null, 'a long past 2^52')
})

t.test(
  'A15: a record written before enc (v2) is taken as the v3 one; a sealed record is left to the general path',
  async (t) => {
    const v2 = avro.Type.forSchema(JSON.parse(readFileSync(join(HISTORY, 'event.v2.avsc'), 'utf8')))
    const base = makeEvent({ event: 'XX', properties: '{"a":"YY"}', user_traits: '{"plan":"pro"}' })
    const general = prepareEvent(type.fromBuffer(type.toBuffer(base)), newArenas(), null, false)
    const old = transcodeEvent(Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), v2.toBuffer(base)]), newArenas(), null)
    t.not(old, null, 'the v2 layout is taken')
    t.equal(rowsOf(old!), rowsOf(general!), 'with the same row')
    const arenas = newArenas()
    const before = positions(arenas)
    const sealed = wire({ ...base, enc: { key_id: 'acme\u0000p\u00002026-01\u00001', body: Buffer.alloc(40, 1) } })
    t.equal(transcodeEvent(sealed, arenas, null), null, 'enc set: opened on the general path')
    t.same(positions(arenas), before, 'nothing appended')
  },
)

t.test('records larger than a chunk and many records across chunks', async (t) => {
  const fast = newArenas(4_096)
  const general = newArenas(4_096)
  for (let i = 0; i < 200; i++) {
    const r = makeEvent({
      properties: JSON.stringify({ blob: 'x\t'.repeat(i * 40) }),
      user_traits: i % 3 ? null : `{"n":${i}}`,
    })
    const got = transcodeEvent(wire(r), fast, null)!
    const expected = prepareEvent(r, general, null, false)
    if (rowsOf(got) !== rowsOf(expected) || traitsOf(got) !== traitsOf(expected)) t.fail(`record ${i} differs`)
  }
  t.pass('200 records the same')
})

t.test(
  'A21: a sealed record of the stream format is taken when its key is held, with the rows of the general path after opening',
  async (t) => {
    const keys = Array.from({ length: 20 }, (_, i) => {
      const bytes = newDataKey()
      return { id: `acme\u0000p${i}\u00002026-11\u0000s0000000${i % 10}`, bytes, stream: new KeyStream(bytes) }
    })
    // The general path opens with copies of the keys: its stream readers are its own.
    const copies = new Map(keys.map((k) => [k.id, Buffer.from(k.bytes)]))
    const held = new Map(keys.map((k) => [k.id, k.bytes]))
    const opener = new RecordOpener({ keyFor: (id) => held.get(id), caughtUp: async () => undefined })
    const fast = newArenas(64 * 1024)
    const general = newArenas(64 * 1024)
    let taken = 0
    for (let i = 0; i < 3_000; i++) {
      const r = randomEvent()
      const sealed = encryptPersonalFields(
        'event',
        r as any,
        keys[i % keys.length]!,
        'pseudo',
      ) as unknown as EventRecord
      const bytes = wire(sealed)
      let expected: PreparedRecord | null = null
      try {
        const opened = decryptRecord('event', type.fromBuffer(bytes.subarray(5)), (id) => copies.get(id))
        expected = prepareEvent(opened as EventRecord, general, null, false)
      } catch {}
      const before = positions(fast)
      const got = transcoder.transcode(bytes, fast, null, opener)
      if (got === null) {
        t.same(positions(fast), before, 'nothing appended when left to the general path')
        const ascii = PERSONAL_FIELDS.event.every((f) =>
          Buffer.from(String((r as any)[f] ?? '')).every((b) => b < 0x80),
        )
        if (expected !== null && ascii)
          t.fail(`an ASCII record with its key held left to the general path: ${JSON.stringify(r)}`)
        continue
      }
      if (expected === null) {
        t.fail(`taken, but the general path refuses it: ${JSON.stringify(r)}`)
        continue
      }
      taken++
      if (rowsOf(got) !== rowsOf(expected) || traitsOf(got) !== traitsOf(expected))
        t.fail(`rows differ for ${JSON.stringify(r)}:\n${rowsOf(got)}\n${rowsOf(expected)}`)
      if (got.message_id !== expected.message_id || got.event_id !== expected.event_id) t.fail('H16 key differs')
    }
    t.ok(taken > 400, `${taken} of 3,000 sealed records taken by the transcoder`)

    const base = makeEvent({ properties: '{"a":"YY"}' })
    const key = keys[0]!
    const stream = wire(encryptPersonalFields('event', base as any, key, 'pseudo') as unknown as EventRecord)
    const gcm = wire(
      encryptPersonalFields(
        'event',
        base as any,
        { id: 'acme\u0000p\u00002026-11\u00000a0b0c0d', bytes: key.bytes },
        'p',
      ) as unknown as EventRecord,
    )
    const nobody = new RecordOpener({ keyFor: () => undefined, caughtUp: async () => undefined })
    const cases: Array<[string, Buffer, RecordOpener | undefined]> = [
      ['a key not held (not read yet, or gone): the general path waits or stubs', stream, nobody],
      ['a GCM body (A13)', gcm, opener],
      ['no opener (sealing off in this projector)', stream, undefined],
      [
        'a body too short to hold its offset',
        wire({ ...base, enc: { key_id: key.id, body: Buffer.alloc(3) } }),
        opener,
      ],
    ]
    for (const [name, bytes, bodies] of cases) {
      const before = positions(fast)
      t.equal(transcoder.transcode(bytes, fast, null, bodies), null, name)
      t.same(positions(fast), before, `${name}: nothing appended`)
    }
  },
)
