// Contract suite, per-item rules over HTTP and in the projection: a `__proto__` key fails only the
// item that holds it (H31), trait keys are capped per item (H28), e-mail addresses and names are
// checked (H29, H30). Each refusal is a 400 VALIDATION_ERROR naming the field, per item in a batch.
import t from 'tap'
import { startServices } from '../support/harness.js'
import { expectError } from '../support/contract.js'

const iso = (ms: number) => new Date(ms).toISOString()
const keysOf = (n: number, prefix: string) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]))

t.test('per-item rules', async (t) => {
  const s = await startServices(t, { env: { IP_REQUESTS_PER_MINUTE: '10000' } })
  const live = await s.createKey({ type: 'live', plan: 'orbit' })
  const test = await s.createKey({ type: 'test', account: live.accountId })
  const db = s.database

  t.test('a __proto__ key in one of 10 items fails that item; the 9 others are stored (H31)', async (t) => {
    // Raw text: JSON.stringify of an object literal cannot carry a __proto__ key.
    const items = Array.from({ length: 10 }, (_, i) =>
      i === 4
        ? `{"type":"event","event":"proto_bad","user":{"id":"p4"},"properties":{"__proto__":{"isAdmin":true}}}`
        : `{"type":"event","event":"proto_good","user":{"id":"p${i}"},"properties":{"i":${i}}}`,
    )
    const r = await s.post('/v1/events', `{"sent_at":"${iso(Date.now())}","events":[${items.join(',')}]}`, {
      key: live.key,
    })
    t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300))
    t.equal(r.body.data.processed_count, 9)
    t.equal(r.body.data.failed_count, 1)
    const bad = r.body.data.results[4]
    t.match(bad, { index: 4, success: false, error: { code: 'VALIDATION_ERROR' } })
    t.match(bad.error.message, '/events/4/properties/__proto__')
    const rows = await s.waitForRows<{ user_id: string; i: number }>(
      `SELECT user_id, visitParamExtractInt(properties, 'i') AS i FROM ${db}.events FINAL WHERE account_id = '${live.accountId}' AND event = 'proto_good' ORDER BY i`,
      9,
    )
    t.same(
      rows.map((x) => x.i),
      [0, 1, 2, 3, 5, 6, 7, 8, 9],
    )

    const top = await s.post(
      '/v1/events',
      `{"sent_at":"${iso(Date.now())}","__proto__":{"x":1},"events":[${items[0]}]}`,
      { key: live.key },
    )
    expectError(t, top, 400, 'INVALID_JSON', 'a __proto__ key of the envelope itself')
  })

  t.test('trait keys: at most 100 per item, merged for an identify, keys at most 255 characters (H28)', async (t) => {
    // The reported request: 10 identifies, each with thousands of traits, sent with a test key.
    const flood = Array.from({ length: 10 }, () => ({
      type: 'identify',
      user: { id: 'trait_user' },
      traits: keysOf(2000, 'flood'),
    }))
    const refused = await s.post('/v1/events', { sent_at: iso(Date.now()), events: flood }, { key: test.key })
    expectError(t, refused, 400, 'VALIDATION_ERROR', 'no item accepted')
    t.same(
      refused.body.error.details.results.map((x: any) => x.error.message),
      flood.map((_, i) => `/events/${i}/traits: traits has 2000 keys; at most 100 are allowed`),
    )

    const r = await s.post(
      '/v1/events',
      {
        sent_at: iso(Date.now()),
        events: [
          { type: 'identify', user: { id: 'trait_user', traits: keysOf(50, 'ok') }, traits: keysOf(50, 'top') },
          { type: 'identify', user: { id: 'trait_user', traits: keysOf(51, 'a') }, traits: keysOf(50, 'b') },
          { type: 'event', event: 'with_traits', user: { id: 'trait_user', traits: keysOf(101, 'c') } },
          { type: 'identify', user: { id: 'trait_user' }, traits: { ['k'.repeat(256)]: 1 } },
        ],
      },
      { key: test.key },
    )
    t.equal(r.status, 200)
    t.same(
      r.body.data.results.map((x: any) => x.success),
      [true, false, false, false],
    )
    t.same(
      r.body.data.results.slice(1).map((x: any) => x.error.message.split(':')[0]),
      ['/events/1/traits', '/events/2/user/traits', '/events/3/traits'],
    )
    const rows = await s.waitForRows<{ n: number; keys: string }>(
      `SELECT count() AS n, arrayStringConcat(arraySort(groupUniqArray(substring(trait_key, 1, 2))), ',') AS keys FROM ${db}.user_traits FINAL WHERE account_id = '${live.accountId}' AND user_id = 'trait_user' HAVING n >= 100`,
    )
    t.same(rows, [{ n: 100, keys: 'ok,to' }], 'the accepted identify wrote its 100 keys; nothing of the refused items')
  })

  t.test('e-mail and names are checked (H29, H30)', async (t) => {
    // The reported one: a 20,013-byte e-mail with NUL, tab and newline.
    const email = `${'a'.repeat(10_000)}\u0000\t\n@${'b'.repeat(10_005)}.com`
    t.equal(Buffer.byteLength(email), 20_013)
    const r = await s.post('/v1/event', { event: 'x', user: { id: 'admin\u202Egnp.exe', email } }, { key: live.key })
    expectError(t, r, 400, 'VALIDATION_ERROR', 'bidi control in user.id and a bad email')
    t.same(
      r.body.error.details.errors.map((e: any) => e.path),
      ['/user/id', '/user/email'],
    )
  })
})
