import t from 'tap'
import { parseAuthorization } from './parse-auth.js'
import { generateKey } from '../../../shared/src/accounts/key-hash.js'

const BODY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd' // 40 base62
const LIVE = `svc_live_${BODY}`
const TEST = `svc_test_${BODY}`
const BOTH = new Set(['live', 'test'] as const)

const codeOf = (h: string | undefined, accepted: ReadonlySet<'live' | 'test'> = BOTH) => {
  const r = parseAuthorization(h, accepted)
  return r.ok ? 'OK' : r.error.code
}

t.test('valid bearer keys', async (t) => {
  t.same(parseAuthorization(`Bearer ${LIVE}`, BOTH), { ok: true, key: LIVE, type: 'live' })
  t.same(parseAuthorization(`Bearer ${TEST}`, BOTH), { ok: true, key: TEST, type: 'test' })
  t.same(
    parseAuthorization(`bearer ${LIVE}`, BOTH),
    { ok: true, key: LIVE, type: 'live' },
    'scheme is case-insensitive',
  )
  t.same(parseAuthorization(`BEARER ${LIVE}`, BOTH), { ok: true, key: LIVE, type: 'live' })
  t.same(parseAuthorization(`  Bearer   ${LIVE}  `, BOTH), { ok: true, key: LIVE, type: 'live' }, 'extra spaces')
  t.same(
    parseAuthorization(`Bearer svc_live_${'a'.repeat(32)}`, BOTH),
    { ok: true, key: `svc_live_${'a'.repeat(32)}`, type: 'live' },
    'exactly 32',
  )
  const r = parseAuthorization(`Bearer ${LIVE}`, BOTH)
  t.equal(r.ok && r.key, LIVE)
})

t.test('MISSING_AUTH_HEADER', async (t) => {
  for (const h of [
    undefined,
    '',
    '   ',
    '\t',
    'Bearer',
    'Bearer ',
    'Bearer    ',
    'Basic dXNlcjpwYXNz',
    LIVE,
    `Token ${LIVE}`,
    `Bearer${LIVE}`,
    `Bearer:${LIVE}`,
  ]) {
    t.equal(codeOf(h), 'MISSING_AUTH_HEADER', JSON.stringify(h))
  }
  const r = parseAuthorization(undefined, BOTH)
  t.equal(!r.ok && r.error.status, 401)
})

t.test('INVALID_KEY_FORMAT: no svc_live_/svc_test_ prefix (key compared exactly)', async (t) => {
  for (const k of [BODY, `sk_live_${BODY}`, `SVC_LIVE_${BODY}`, `svc_prod_${BODY}`, `svc_live${BODY}`, 'x']) {
    t.equal(codeOf(`Bearer ${k}`), 'INVALID_KEY_FORMAT', k)
  }
  const r = parseAuthorization('Bearer nope', BOTH)
  t.equal(!r.ok && r.error.status, 401)
})

t.test('INVALID_API_KEY: malformed body or type not accepted', async (t) => {
  t.equal(codeOf('Bearer svc_live_'), 'INVALID_API_KEY', 'prefix only')
  t.equal(codeOf(`Bearer svc_live_${'a'.repeat(31)}`), 'INVALID_API_KEY', '31 chars')
  t.equal(codeOf(`Bearer svc_live_${BODY.slice(0, 39)}-`), 'INVALID_API_KEY', 'non-base62 char')
  t.equal(codeOf(`Bearer svc_live_${BODY.slice(0, 20)} ${BODY.slice(20)}`), 'INVALID_API_KEY', 'space inside')
  t.equal(codeOf(`Bearer svc_live_${BODY}é`), 'INVALID_API_KEY', 'non-ascii')
  t.equal(codeOf(`Bearer svc_live_${'a'.repeat(129)}`), 'INVALID_API_KEY', 'absurdly long')
  t.equal(codeOf(`Bearer ${TEST}`, new Set(['live'])), 'INVALID_API_KEY', 'test key where only live accepted')
  t.equal(codeOf(`Bearer ${LIVE}`, new Set(['test'])), 'INVALID_API_KEY', 'live key where only test accepted')
  t.equal(codeOf(`Bearer ${LIVE}`, new Set(['live'])), 'OK')
})

t.test('a generated key parses as a key of its type', async (t) => {
  const live = generateKey('live')
  t.same(parseAuthorization(`Bearer ${live.key}`, new Set(['live'])), { ok: true, key: live.key, type: 'live' })
})
