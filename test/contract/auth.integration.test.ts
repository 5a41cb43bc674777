// Contract suite, authentication (docs/api.md Authentication 1-10, Errors table rows 401; H1, H2 order).
// This deployment accepts live keys only (ACCEPTED_KEY_TYPES=live) to prove the "wrong type for
// the deployment" row; test keys are covered by limits.integration.test.ts.
import t from 'tap'
import { startServices, waitUntil } from '../support/harness.js'
import { http, unknownKey, expectError, type Asserts } from '../support/contract.js'

const EVENT = JSON.stringify({ event: 'signup_completed', user: { id: 'u1' } })
const JSON_CT = { 'content-type': 'application/json' }

t.test('authentication contract', async (t) => {
  const s = await startServices(t, { env: { ACCEPTED_KEY_TYPES: 'live', IP_REQUESTS_PER_MINUTE: '10000' } })
  const live = await s.createKey({ type: 'live', plan: 'orbit' })
  const testKey = await s.createKey({ type: 'test', account: live.accountId })

  const send = (
    authorization: string | undefined,
    path = '/v1/event',
    extra: Record<string, string> = {},
    body = EVENT,
  ) =>
    http(s.ingestUrl, path, {
      headers: { ...JSON_CT, ...(authorization === undefined ? {} : { authorization }), ...extra },
      body,
    })

  const expect401 = (t: Asserts, res: Awaited<ReturnType<typeof send>>, code: string, what: string) => {
    expectError(t, res, 401, code, what)
    t.same(Object.keys(res.body).sort(), ['error', 'success'], `${what}: shape 1`)
    t.notOk('details' in res.body.error, `${what}: no details on auth errors`)
  }

  t.test('MISSING_AUTH_HEADER: absent, empty, whitespace-only, non-Bearer', async (t) => {
    const cases: Array<[string, string | undefined]> = [
      ['absent', undefined],
      ['empty', ''],
      ['whitespace only', '   '],
      ['tab only', '\t'],
      ['Basic scheme', 'Basic dXNlcjpwYXNz'],
      ['Token scheme with a valid key', `Token ${live.key}`],
      ['bare key without scheme', live.key],
      ['Bearer with no value', 'Bearer'],
      ['Bearer with only spaces', 'Bearer    '],
      ['Bearer glued to the key', `Bearer${live.key}`],
    ]
    for (const [what, header] of cases) {
      const res = await send(header)
      expect401(t, res, 'MISSING_AUTH_HEADER', what)
      t.match(res.body.error.message, /Authorization|Bearer/, `${what}: message says what is missing`)
    }
    // both endpoints
    expect401(t, await send(undefined, '/v1/events'), 'MISSING_AUTH_HEADER', 'batch endpoint, absent')
  })

  t.test('INVALID_KEY_FORMAT: a key without the svc_live_/svc_test_ prefix', async (t) => {
    for (const [what, key] of [
      ['random text', 'abc'],
      ['other vendor prefix', 'sk_live_' + 'a'.repeat(40)],
      ['upper-case prefix', live.key.toUpperCase()],
      ['prefix without underscore', 'svclive' + 'a'.repeat(40)],
    ] as const) {
      const res = await send(`Bearer ${key}`)
      expect401(t, res, 'INVALID_KEY_FORMAT', what)
      t.match(res.body.error.message, /svc_live_/, `${what}: message names the live prefix`)
    }
  })

  t.test('INVALID_API_KEY: unknown, malformed, wrong type for this deployment', async (t) => {
    const cases: Array<[string, string]> = [
      ['unknown well-formed live key', unknownKey('live')],
      ['body too short (31 chars)', 'svc_live_' + 'a'.repeat(31)],
      ['non-base62 body', 'svc_live_' + 'a'.repeat(30) + '-_!' + 'b'.repeat(10)],
      ['prefix only', 'svc_live_'],
      ['body far too long', 'svc_live_' + 'a'.repeat(500)],
      ['valid key with one character changed', live.key.slice(0, -1) + (live.key.endsWith('a') ? 'b' : 'a')],
      ['valid key plus a character', live.key + 'x'],
      ['test key, deployment accepts live only (ACCEPTED_KEY_TYPES=live)', testKey.key],
      ['unknown test key', unknownKey('test')],
    ]
    for (const [what, key] of cases) expect401(t, await send(`Bearer ${key}`), 'INVALID_API_KEY', what)
    expect401(
      t,
      await send(
        `Bearer ${testKey.key}`,
        '/v1/events',
        {},
        JSON.stringify({
          sent_at: new Date().toISOString(),
          events: [{ type: 'event', event: 'x', user: { id: 'u' } }],
        }),
      ),
      'INVALID_API_KEY',
      'test key on the batch endpoint',
    )
  })

  t.test('the valid key is accepted, the scheme name case-insensitively (RFC 7235)', async (t) => {
    for (const header of [
      `Bearer ${live.key}`,
      `bearer ${live.key}`,
      `BEARER  ${live.key}`,
      `  Bearer ${live.key}  `,
    ]) {
      const res = await send(header)
      t.equal(res.status, 200, JSON.stringify(header.replace(live.key, '<key>')))
      t.equal(res.body.success, true)
    }
  })

  t.test('authentication comes first (H2): a bad key beats a bad body', async (t) => {
    const a = await http(s.ingestUrl, '/v1/event', { headers: { 'content-type': 'text/plain' }, body: 'hello' })
    expect401(t, a, 'MISSING_AUTH_HEADER', 'no key, wrong content type')
    const b = await send(`Bearer ${unknownKey()}`, '/v1/event', {}, '{not json')
    expect401(t, b, 'INVALID_API_KEY', 'unknown key, invalid JSON')
    const c = await send('Bearer nope', '/v1/events', {}, JSON.stringify({}))
    expect401(t, c, 'INVALID_KEY_FORMAT', 'bad format, invalid batch')
  })

  t.test('inactive and revoked keys give INVALID_API_KEY; reactivation works', async (t) => {
    const k = await s.createKey({ type: 'live', account: live.accountId })
    const ok = () => send(`Bearer ${k.key}`)
    t.equal((await ok()).status, 200, 'active key works')

    await s.admin.setKeyStatus(k.keyId, 'inactive')
    await waitUntil(async () => (await ok()).status === 401, 15_000, 'the inactive key to be refused')
    expect401(t, await ok(), 'INVALID_API_KEY', 'inactive key')

    await s.admin.setKeyStatus(k.keyId, 'active')
    await waitUntil(async () => (await ok()).status === 200, 15_000, 'the reactivated key to work')
    const back = await ok()
    t.equal(back.status, 200, 'reactivated key works')
    t.equal(back.body.success, true)

    await s.admin.setKeyStatus(k.keyId, 'revoked')
    await waitUntil(async () => (await ok()).status === 401, 15_000, 'the revoked key to be refused')
    expect401(t, await ok(), 'INVALID_API_KEY', 'revoked key')
    expect401(
      t,
      await send(
        `Bearer ${k.key}`,
        '/v1/events',
        {},
        JSON.stringify({
          sent_at: new Date().toISOString(),
          events: [{ type: 'event', event: 'x', user: { id: 'u' } }],
        }),
      ),
      'INVALID_API_KEY',
      'revoked key on the batch endpoint',
    )
    t.equal((await send(`Bearer ${live.key}`)).status, 200, 'other keys of the account still work')
  })
})
