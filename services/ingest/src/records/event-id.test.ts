import t from 'tap'
import { createHash } from 'node:crypto'
import { EVENT_ID_NAMESPACE, EventIds, uuidv7Time } from './event-id.js'

const ids = new EventIds()
const uuidv5 = (ns: string, name: string) => ids.uuidv5(ns, name)
const uuidv7 = (ms: number) => ids.uuidv7(ms)
const eventIdFor = (a: string, e: 'live' | 'test', m: string | undefined, ms: number) => ids.forItem(a, e, m, ms)

const DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'
const URL_NS = '6ba7b811-9dad-11d1-80b4-00c04fd430c8'
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('uuidv5 matches known vectors', async (t) => {
  t.equal(uuidv5(DNS, 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2')
  t.equal(uuidv5(DNS, 'python.org'), '886313e1-3b8a-5372-9b90-0c9aee199e5d')
  t.equal(uuidv5(URL_NS, 'http://python.org/'), '4c565f0d-3f5a-5890-b41b-20cf47701c5e')
  t.equal(
    uuidv5(DNS.toUpperCase(), 'www.example.com'),
    '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    'namespace case-insensitive',
  )
  t.throws(() => uuidv5('not-a-uuid', 'x'), TypeError)
})

t.test('uuidv7 layout, timestamp and order', async (t) => {
  const ms = Date.UTC(2030, 0, 1)
  const id = uuidv7(ms)
  t.match(id, V7)
  t.equal(uuidv7Time(id), ms)
  // RFC 9562 appendix A.6 example time 2022-02-22T19:22:22Z = 0x017F22E279B0.
  t.equal(uuidv7(0x017f22e279b0).slice(0, 13), '017f22e2-79b0')

  const later = ms + 60_000
  const ids = Array.from({ length: 5000 }, () => uuidv7(later))
  t.equal(new Set(ids).size, ids.length, 'unique')
  for (let i = 1; i < ids.length; i++) {
    if (!(ids[i - 1]! < ids[i]!)) t.fail(`not monotonic at ${i}: ${ids[i - 1]} !< ${ids[i]}`)
    if (!V7.test(ids[i]!)) t.fail(`bad layout ${ids[i]}`)
  }
  t.ok(
    uuidv7Time(ids.at(-1)!) >= later && uuidv7Time(ids.at(-1)!) <= later + 2,
    'counter overflow borrows at most a ms or two',
  )
  t.ok(uuidv7(later + 10_000) > ids.at(-1)!, 'next millisecond sorts after')
  t.throws(() => uuidv7(-1), RangeError)
  t.throws(() => uuidv7(1.5), RangeError)
})

t.test('eventIdFor: v5 from account, environment and message_id (H16), else v7', async (t) => {
  const now = Date.UTC(2031, 0, 1)
  const a = eventIdFor('acc_1', 'live', 'msg-1', now)
  t.equal(a, uuidv5(EVENT_ID_NAMESPACE, '["acc_1","live","msg-1"]'))
  t.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab]/)
  t.equal(eventIdFor('acc_1', 'live', 'msg-1', now + 5000), a, 'retry gives the same id')
  t.not(eventIdFor('acc_2', 'live', 'msg-1', now), a, 'other account, other id')
  t.not(eventIdFor('acc_1', 'live', 'msg-2', now), a)
  // H16: a test-key event must not take the id of the live event with the same message_id
  t.not(eventIdFor('acc_1', 'test', 'msg-1', now), a, 'other environment, other id')
  // the parts cannot run into each other: no separator inside an account id or message_id collides
  t.not(eventIdFor('acc:1', 'live', 'x', now), eventIdFor('acc', 'live', '1:x', now))
  const b = eventIdFor('acc_1', 'live', undefined, now)
  t.match(b, V7)
  t.equal(uuidv7Time(b), now)
  t.not(eventIdFor('acc_1', 'live', undefined, now), b)
})

/**
 * RFC 9562's v5 written independently of event-id.ts: SHA-1 of namespace and name, version and
 * variant bits set, the hex digits in 8-4-4-4-12 groups. Gives the id and its 32 hex digits.
 */
function referenceV5(namespace: string, name: string): { id: string; hex: string } {
  const h = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
  h[6] = (h[6]! & 0x0f) | 0x50
  h[8] = (h[8]! & 0x3f) | 0x80
  const hex = h.subarray(0, 16).toString('hex')
  return {
    id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    hex,
  }
}

t.test(
  'ids are the hex of their bytes for every byte value, and stay as made when later ids are written',
  async (t) => {
    const seen = new Set<string>()
    const first = uuidv5(DNS, 'name-0')
    for (let i = 0; i < 3000; i++) {
      const want = referenceV5(DNS, `name-${i}`)
      const got = uuidv5(DNS, `name-${i}`)
      if (got !== want.id) t.fail(`name-${i}: ${got} != ${want.id}`)
      for (let k = 0; k < 16; k++) seen.add(want.hex.slice(2 * k, 2 * k + 2))
    }
    t.equal(seen.size, 256, 'every byte value was written')
    // Names longer than the hashing buffer, and in every UTF-8 length, hash as node:crypto hashes them.
    for (const name of [
      '',
      'é',
      '€uro',
      '🎉 party',
      '\ud800 lone',
      'x'.repeat(600),
      '€'.repeat(700),
      `["acc","live","${'m'.repeat(100)}"]`,
    ]) {
      t.equal(uuidv5(DNS, name), referenceV5(DNS, name).id, `name of ${name.length} units`)
    }
    t.equal(first, uuidv5(DNS, 'name-0'), 'an id made earlier is unchanged')
    t.equal(first.length, 36)
  },
)
