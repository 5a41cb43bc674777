import t from 'tap'
import { userKey } from '../../../../../schemas/records.js'
import { ConfigError } from '../../env.js'
import {
  DEV_MASTER_KEY,
  dataKeyId,
  decryptRecord,
  encryptPersonalFields,
  isStreamKeyId,
  keyMonth,
  mintDataKey,
  newAccountSecret,
  newDataKey,
  newKeyId,
  open,
  parseMasterKey,
  PERSONAL_FIELDS,
  pseudonymOf,
  pseudonymousRecordKey,
  seal,
  unwrapDataKey,
  wrapDataKey,
} from './index.js'

const MARK = 'mark-7f3a'
// The fields both record types share, with the marker in every personal one.
const common = () => ({
  account_id: 'acme',
  environment: 'live',
  key_id: 'k1',
  user_id: `${MARK}-user`,
  timestamp: 1_700_000_000_000,
  original_timestamp: null,
  received_at: 1_700_000_000_500,
  sent_at: null,
  timestamp_flagged: false,
  ip: '203.0.113.7',
  user_agent: `UA ${MARK}`,
  message_id: `${MARK}-msg`,
})
const eventRecord = () => ({
  ...common(),
  event_id: 'ev1',
  event: '$group',
  user_email: `${MARK}@example.com`,
  user_traits: JSON.stringify({ name: MARK }),
  properties: JSON.stringify({ group_id: MARK, traits: { plan: MARK } }),
  context: JSON.stringify({ page: { url: `https://x/${MARK}` } }),
  anonymous_id: `${MARK}-anon`,
})
const identifyRecord = () => ({
  ...common(),
  event_id: 'id1',
  email: `${MARK}@example.com`,
  traits: JSON.stringify({ name: MARK }),
  context: JSON.stringify({ userAgent: MARK }),
  // alias (H50): the previous id travels as anonymous_id
  anonymous_id: `${MARK}-previous`,
})

t.test('the pseudonym is stable per account, differs across accounts, and hides the id', async (t) => {
  const a = newAccountSecret()
  const b = newAccountSecret()
  t.equal(pseudonymOf(a, 'u1'), pseudonymOf(a, 'u1'), 'same person, same pseudonym: ordering stays')
  t.not(pseudonymOf(a, 'u1'), pseudonymOf(b, 'u1'))
  t.not(pseudonymOf(a, 'u1'), pseudonymOf(a, 'u2'))
  t.match(pseudonymOf(a, 'u1'), /^[0-9a-f]{32}$/)
  t.equal(pseudonymousRecordKey('acme', 'p'), userKey('acme', 'p'), 'same key shape as the clear record key')
  t.throws(() => pseudonymOf(Buffer.alloc(8), 'u1'), RangeError)
})

t.test('a data key covers one person and one received month (UTC)', async (t) => {
  t.equal(keyMonth(Date.UTC(2026, 0, 31, 23, 59)), '2026-01')
  t.equal(keyMonth(Date.UTC(2026, 1, 1)), '2026-02')
  t.not(dataKeyId('acme', 'p', '2026-01'), dataKeyId('acme', 'p', '2026-02'))
})

t.test('seal and open: any changed byte, key or AAD is refused', async (t) => {
  const key = newDataKey()
  const aad = Buffer.from('aad')
  const sealed = seal(key, Buffer.from('hello'), aad)
  t.equal(open(key, sealed, aad).toString(), 'hello')
  t.equal(sealed.length, 12 + 5 + 16, 'nonce, ciphertext, tag')
  t.not(seal(key, Buffer.from('hello'), aad).toString('hex'), sealed.toString('hex'), 'a fresh nonce each time')
  const flipped = Buffer.from(sealed)
  flipped[14] ^= 1
  t.throws(() => open(key, flipped, aad))
  t.throws(() => open(newDataKey(), sealed, aad))
  t.throws(() => open(key, sealed, Buffer.from('other')))
  t.throws(() => open(key, sealed.subarray(0, 20), aad), RangeError)
})

t.test('a wrapped data key opens only under its master key and its own key id', async (t) => {
  const master = parseMasterKey('', false)
  const dk = newDataKey()
  const id = dataKeyId('acme', 'p', '2026-01')
  const wrapped = wrapDataKey(master, id, dk)
  t.same(unwrapDataKey(master, id, wrapped), dk)
  t.throws(() => unwrapDataKey(master, dataKeyId('acme', 'q', '2026-01'), wrapped), 'moved to another person')
  t.throws(() => unwrapDataKey(Buffer.alloc(32, 1), id, wrapped), 'another master key')
  t.notOk(wrapped.includes(dk), 'the data key is not in the wrapped bytes')
})

t.test('PRIVACY_MASTER_KEY: base64 or hex of 32 bytes; the dev default only without REQUIRE_SECRETS', async (t) => {
  const hex = 'ab'.repeat(32)
  t.same(parseMasterKey(hex, true), Buffer.from(hex, 'hex'))
  const b64 = Buffer.alloc(32, 7).toString('base64')
  t.same(parseMasterKey(b64, true), Buffer.alloc(32, 7))
  t.same(parseMasterKey('', false), Buffer.from(DEV_MASTER_KEY, 'base64'))
  t.throws(() => parseMasterKey('', true), ConfigError)
  t.throws(() => parseMasterKey(DEV_MASTER_KEY, true), ConfigError)
  t.throws(() => parseMasterKey('short', false), ConfigError)
  t.throws(() => parseMasterKey(Buffer.alloc(16).toString('base64'), false), ConfigError)
  const err = t.throws(() => parseMasterKey(`${hex.slice(0, 60)}zzzz`, false)) as Error
  t.notMatch(err.message, hex.slice(0, 60), 'the value is not in the message')
})

for (const [kind, make] of [
  ['event', eventRecord],
  ['identify', identifyRecord],
] as const) {
  t.test(`${kind}: every personal field is sealed, the clear ones stay, and decrypt restores the record`, async (t) => {
    const original = make()
    const key = { id: dataKeyId('acme', 'p1', '2023-11'), bytes: newDataKey() }
    const enc = encryptPersonalFields(kind, original, key, 'p1')
    const visible = JSON.stringify({ ...enc, enc: { ...enc.enc, body: enc.enc.body.toString('base64') } })
    t.notMatch(visible, MARK, 'no marker in clear fields or in the base64 of the body')
    t.notOk(enc.enc.body.includes(MARK), 'no marker in the sealed bytes')
    t.notOk(visible.includes('203.0.113.7'), 'no IP')
    t.equal(enc.user_id, 'p1')
    t.equal(enc.account_id, 'acme')
    t.equal(enc.received_at, original.received_at)
    for (const f of PERSONAL_FIELDS[kind])
      if (f !== 'user_id') t.ok([null, '{}'].includes(enc[f as keyof typeof enc] as any), `${f} emptied`)
    t.same(
      decryptRecord(kind, enc, (id) => (id === key.id ? key.bytes : undefined)),
      original,
    )
    t.equal(
      decryptRecord(kind, enc, () => undefined),
      undefined,
      'key gone: nothing to project',
    )
    t.throws(() => decryptRecord(kind, { ...enc, received_at: 1 }, () => key.bytes), 'clear fields are bound as AAD')
    t.same(
      decryptRecord(kind, { ...original, enc: null }, () => undefined),
      original,
      'a record from before stage 2 reads as it is',
    )
  })
}

t.test(
  'A20: newKeyId, the one rule for key ids: the person-month, then a fresh stream-format generation',
  async (t) => {
    const a = newKeyId('acme', 'p1', '2026-11')
    const b = newKeyId('acme', 'p1', '2026-11')
    t.match(a.split('\u0000'), ['acme', 'p1', '2026-11', /^s[0-9a-f]{8}$/])
    t.ok(a.startsWith(`${dataKeyId('acme', 'p1', '2026-11')}\u0000`))
    t.ok(isStreamKeyId(a), 'records under it use the stream format (A18)')
    t.not(a, b, 'two mints, two ids')
    const master = parseMasterKey('', false)
    const minted = mintDataKey(master, 'acme', 'p1', '2026-11')
    t.ok(isStreamKeyId(minted.id))
    t.same(unwrapDataKey(master, minted.id, minted.wrapped), minted.bytes, 'wrapped under its own id')
  },
)
