// A18: the stream format (one AES-256-CTR stream per data key) round-trips in and out of order, never
// reuses a stream position, and records sealed in A13's GCM format still open.
import { createCipheriv, createDecipheriv } from 'node:crypto'
import t from 'tap'
import { packFields, unpackFields } from './field-text.js'
import { decryptRecord, encryptPersonalFields, KeyStream, newDataKey, openStream, PERSONAL_FIELDS } from './index.js'

const MARK = 'mark-41d9'
const record = (i: number) => ({
  event_id: `ev${i}`,
  account_id: 'acme',
  environment: 'live',
  key_id: 'k1',
  event: 'Signed Up',
  timestamp: 1_700_000_000_000 + i,
  received_at: 1_700_000_000_500 + i,
  user_id: `${MARK}-user`,
  user_email: i % 3 === 0 ? null : `${MARK}@example.com`,
  user_traits: JSON.stringify({ name: `${MARK} "quoted" ${i}` }),
  properties: JSON.stringify({ n: i, text: 'ü-€-😀:-'.repeat(i % 5) }),
  context: '{}',
  ip: '203.0.113.7',
  user_agent: `UA ${MARK}`,
  message_id: `${MARK}-msg-${i}`,
  anonymous_id: i % 2 === 0 ? undefined : '',
})
const streamKey = (bytes: Buffer) => ({
  id: `acme\u0000p\u00002026-11\u0000s0a0b0c0d`,
  bytes,
  stream: new KeyStream(bytes),
})
const expected = (i: number) => ({ ...record(i), anonymous_id: record(i).anonymous_id ?? null })

t.test('stream format: every record opens, in order and in any order, and hides the personal fields', async (t) => {
  const bytes = newDataKey()
  const key = streamKey(bytes)
  const sealed = Array.from({ length: 40 }, (_, i) => encryptPersonalFields('event', record(i), key, 'p'))
  for (const s of sealed) t.notMatch(s.enc.body.toString('latin1'), MARK)
  const keyFor = (id: string) => (id === key.id ? bytes : undefined)
  for (let i = 0; i < sealed.length; i++)
    t.same(decryptRecord('event', sealed[i]!, keyFor), expected(i), `in order ${i}`)
  // A fresh Buffer of the same key (another reader) and a shuffled order: each opens at its own offset.
  const other = Buffer.from(bytes)
  const order = [17, 3, 39, 0, 22, 21, 5, 38]
  for (const i of order)
    t.same(
      decryptRecord('event', sealed[i]!, () => other),
      expected(i),
      `out of order ${i}`,
    )
  t.equal(
    decryptRecord('event', sealed[0]!, () => undefined),
    undefined,
    'key gone: nothing',
  )
})

t.test('no stream position is used twice: offsets follow each other, equal texts seal differently', async (t) => {
  const stream = new KeyStream(newDataKey())
  let next = 0
  let misplaced = 0
  const bodies = new Set<string>()
  for (let i = 0; i < 5_000; i++) {
    const body = stream.seal('the same text')
    if (body.readUIntBE(0, 6) !== next) misplaced++
    next += body.length - 6
    bodies.add(body.subarray(6).toString('hex'))
  }
  t.equal(misplaced, 0, 'each record starts where the last one ended')
  t.equal(bodies.size, 5_000, 'no two ciphertexts of one text are equal')
  t.throws(() => openStream(newDataKey(), Buffer.alloc(3)), RangeError)
  t.throws(() => openStream(newDataKey(), Buffer.alloc(20), 10, 13), RangeError)
})

t.test("a body read in place, as the transcoder passes a record's bytes, opens as the body alone", async (t) => {
  const key = newDataKey()
  const stream = new KeyStream(key)
  const texts = ['first record', 'second, after it', 'third é ü']
  const bodies = texts.map((text) => Buffer.from(stream.seal(text)))
  const opened = bodies.map((body) => {
    const record = Buffer.concat([Buffer.from('before'), body, Buffer.from('after')])
    return openStream(Buffer.from(key), record, 6, 6 + body.length).toString('utf8')
  })
  t.same(opened, texts)
})

t.test('a key id of the stream format without its stream is refused, not sealed another way', async (t) => {
  const { stream: _, ...noStream } = streamKey(newDataKey())
  t.throws(() => encryptPersonalFields('event', record(1), noStream, 'p'), TypeError)
})

t.test('GCM records (A13, key ids without the stream mark) still seal and open', async (t) => {
  const bytes = newDataKey()
  const key = { id: 'acme\u0000p\u00002026-11\u00000a0b0c0d', bytes }
  const sealed = encryptPersonalFields('identify', { ...record(1), traits: '{"a":1}', email: 'e' }, key, 'p')
  t.equal(sealed.enc.body.length > 28, true)
  const opened = decryptRecord('identify', sealed, () => bytes) as Record<string, unknown>
  t.equal(opened.email, 'e')
  t.equal(opened.traits, '{"a":1}')
  t.equal(opened.user_id, `${MARK}-user`)
})

t.test('packed fields: nulls, empty texts, separators and non-ASCII round-trip; a missing tail is null', async (t) => {
  const names = PERSONAL_FIELDS.event
  const values = ['1:2:3', null, '', '-', '{"k":"v"}', 'ü😀€', undefined, ':-:', 'x']
  const record = Object.fromEntries(names.map((n, i) => [n, values[i]]))
  t.same(
    unpackFields(packFields(record, names), names),
    Object.fromEntries(names.map((n, i) => [n, values[i] ?? null])),
  )
  t.same(unpackFields('1:a', ['x', 'y']), { x: 'a', y: null })
  t.throws(() => unpackFields('zz', ['x']), RangeError)
})

t.test('A20: sealAll gives the bodies seal gives one by one, byte for byte, and they open', async (t) => {
  const bytes = newDataKey()
  const all = new KeyStream(bytes)
  const texts = ['first', '', 'ü€😀 multi-byte', 'x'.repeat(40), 'last']
  const bodies = all.sealAll(texts)
  const single = new KeyStream(bytes)
  t.same(
    bodies.map((b) => b.toString('hex')),
    texts.map((x) => single.seal(x).toString('hex')),
  )
  t.same(
    bodies.map((b) => openStream(bytes, b).toString('utf8')),
    texts,
  )
  t.equal(all.seal('after').toString('hex'), single.seal('after').toString('hex'), 'the stream continues past the run')
})

t.test('A25: bodies made from keystream made ahead are the bytes one cipher gives the texts in turn', async (t) => {
  const bytes = newDataKey()
  const stream = new KeyStream(bytes)
  // The reference: one AES-256-CTR cipher from counter zero over the texts, as A18's format defines a body.
  const reference = createCipheriv('aes-256-ctr', bytes, Buffer.alloc(16))
  // Lengths around the keystream's words and blocks, texts longer than what is made ahead, multi-byte text,
  // empty text, single seals and runs mixed.
  const texts = Array.from({ length: 120 }, (_, i) =>
    i % 7 === 0 ? '' : `${i}ü€😀`.padEnd(1 + ((i * 131) % 3_000), String.fromCharCode(97 + (i % 26))),
  )
  let offset = 0
  let wrong = 0
  for (let i = 0; i < texts.length; ) {
    const run = i % 3 === 0 ? [texts[i]!] : texts.slice(i, i + 1 + (i % 5))
    const bodies = run.length === 1 ? [stream.seal(run[0]!)] : stream.sealAll(run)
    for (let j = 0; j < run.length; j++) {
      const want = reference.update(run[j]!, 'utf8')
      const body = bodies[j]!
      if (body.readUIntBE(0, 6) !== offset || !body.subarray(6).equals(want)) wrong++
      offset += want.length
    }
    i += run.length
  }
  t.equal(wrong, 0, 'every body: its offset, then the reference ciphertext')
})

t.test(
  'A21: records read with gaps open: skipped records (another topic, a failed request) and going back',
  async (t) => {
    const bytes = newDataKey()
    const key = streamKey(bytes)
    // Records of 40 to 2,400 bytes, so some gaps are skipped over by the continued reader and some are not.
    const texts = Array.from({ length: 60 }, (_, i) => `${i}:`.padEnd(40 + ((i * 397) % 2_400), 'x'))
    const bodies = texts.map((text) => key.stream.seal(text))
    const reader = Buffer.from(bytes)
    const order = [
      ...Array.from({ length: 30 }, (_, i) => 2 * i),
      ...Array.from({ length: 30 }, (_, i) => 2 * i + 1),
      59,
      58,
      0,
      3,
      9,
    ]
    let wrong = 0
    for (const i of order) if (openStream(reader, bodies[i]!).toString('utf8') !== texts[i]) wrong++
    t.equal(wrong, 0, `${order.length} reads in an order with forward gaps and going back`)
  },
)

t.test(
  'A27: opened bodies are the reference plaintexts: keys interleaved, gaps within and past MAX_GAP, going back',
  async (t) => {
    // Independent reference: a fresh AES-256-CTR decipher at each record's own offset (A18's definition).
    const reference = (key: Buffer, body: Buffer) => {
      const offset = body.readUIntBE(0, 6)
      const iv = Buffer.alloc(16)
      iv.writeUIntBE(Math.floor(offset / 16), 10, 6)
      const d = createDecipheriv('aes-256-ctr', key, iv)
      return Buffer.concat([d.update(Buffer.alloc(offset % 16)), d.update(body.subarray(6))]).subarray(offset % 16)
    }
    // Three keys; lengths from 0 to about 2 KiB, so records start and end at every place in a block and the
    // gaps below are both shorter and longer than what a reader deciphers over (1 KiB).
    const keys = [newDataKey(), newDataKey(), newDataKey()]
    const streams = keys.map((k) => new KeyStream(k))
    const sealed = Array.from({ length: 240 }, (_, i) => {
      const text = i % 11 === 0 ? '' : `${i}ü€`.padEnd((i * 37) % 2_118, 'abcdefg'[i % 7])
      return { key: i % 3, body: Buffer.from(streams[i % 3]!.seal(text)) }
    })
    const readers = keys.map((k) => Buffer.from(k))
    // Stream order interleaved, then a key's records with forward gaps (small and past MAX_GAP), going back,
    // and one record read twice.
    const order = [...sealed.keys(), ...[0, 9, 12, 60, 63, 66, 3, 237, 6, 6, 120, 150, 153].map((i) => i + 240)]
    let wrong = 0
    for (const j of order) {
      const { key, body } = sealed[j % 240]!
      if (!openStream(readers[key]!, body).equals(reference(keys[key]!, body))) wrong++
    }
    t.equal(wrong, 0, `${order.length} bodies opened as the reference opens them`)
  },
)
