// The dashboard's JSON API (services/dashboard/src/api, auth) on the assembled app in this process
// (test/support/in-process-dashboard.ts): sessions, CSRF refusal, sign-in throttling, keys scoped to
// their account, the key cap and the key changes a minute (409, 429), 400 VALIDATION_ERROR naming the field,
// event-data reads answering 503 with Retry-After while ClickHouse is away, 404/405.
// The stack tier (services/dashboard/src/api/*.integration.test.ts) keeps what needs the real topic,
// ClickHouse and ingest: keys reaching ingest, events and the live stream.
import t from 'tap'
import { startInProcessDashboard } from '../support/in-process-dashboard.js'

t.test('sessions: sign-up, me, sign-out, sign-in, one account per email, a tampered cookie', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  t.match(await c.get('/api/me'), { status: 401, body: { success: false, error: { code: 'UNAUTHORIZED' } } })
  const { email, password, accountId } = await c.signUp()
  const acct = d.admin.accounts.get(accountId)
  t.equal(acct?.owner_email, email, 'the account is a record on the accounts topic')
  t.match(acct?.password_hash, /^scrypt\$/)
  t.notMatch(JSON.stringify(acct), password, 'the password itself is stored nowhere')
  t.match((await c.get('/api/me')).body.data, { account_id: accountId, email, plan: 'hobby' })
  t.equal(
    (await d.client().post('/api/signup', { email: email.toUpperCase(), password: 'another password' })).status,
    409,
    'case-insensitively',
  )
  t.equal((await c.post('/api/signout')).status, 200)
  t.equal((await c.get('/api/me')).status, 401, 'signed out')
  t.match(await c.post('/api/signin', { email, password: 'not the password' }), {
    status: 401,
    body: { error: { code: 'INVALID_CREDENTIALS' } },
  })
  t.match(
    await c.post('/api/signin', { email: 'nobody@example.com', password: 'whatever1' }),
    { status: 401, body: { error: { code: 'INVALID_CREDENTIALS' } } },
    'the same for an unknown email',
  )
  const ok = await c.post('/api/signin', { email, password })
  t.equal(ok.status, 200)
  t.match(
    ok.headers.getSetCookie().find((x) => x.startsWith('dash_session=')),
    /HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/i,
  )
  const forged = d.client()
  forged.cookies.set(
    'dash_session',
    c.cookies.get('dash_session')!.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')),
  )
  t.equal((await forged.get('/api/me')).status, 401, 'a tampered session cookie is no session')
})

t.test('sign-in throttling: 429 with Retry-After, even with the right password', async (t) => {
  const d = await startInProcessDashboard(t, { LOGIN_MAX_FAILURES: '3' })
  const { email, password } = await d.client().signUp()
  const other = d.client()
  for (let i = 0; i < 3; i++)
    t.equal((await other.post('/api/signin', { email, password: `bad-${i}-password` })).status, 401)
  const blocked = await other.post('/api/signin', { email, password })
  t.match(blocked, { status: 429, body: { error: { code: 'TOO_MANY_ATTEMPTS' } } })
  t.ok(Number(blocked.headers.get('retry-after')) > 0)
})

t.test('CSRF: a state-changing request without the token or from another origin is 403', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  await c.signUp()
  t.match(await c.post('/api/keys', { name: 'k', type: 'live' }, { csrf: null }), {
    status: 403,
    body: { error: { code: 'CSRF_REJECTED' } },
  })
  t.match(await c.post('/api/keys', { name: 'k', type: 'live' }, { origin: 'https://evil.example' }), {
    status: 403,
    body: { error: { code: 'CSRF_REJECTED' } },
  })
  t.match(await c.post('/api/keys', { name: 'k', type: 'live' }), { status: 201 }, 'with both, the change is made')
})

t.test(
  'keys: the secret shown once, listed masked, revoked for good, never reachable from another account',
  async (t) => {
    const d = await startInProcessDashboard(t)
    const owner = d.client()
    await owner.signUp()
    const made = await owner.post('/api/keys', { name: 'server', type: 'live' })
    t.equal(made.status, 201)
    const { key_id: keyId, secret } = made.body.data
    t.match(secret, /^svc_live_[A-Za-z0-9]{40}$/)
    const list = await owner.get('/api/keys')
    t.equal(list.status, 200)
    t.notMatch(JSON.stringify(list.body), secret, 'the list never shows the secret')
    t.match(list.body.data, [{ key_id: keyId, status: 'active' }])
    const stranger = d.client()
    await stranger.signUp()
    t.equal((await stranger.post(`/api/keys/${keyId}/revoke`)).status, 404, 'another account cannot see the key')
    t.equal((await owner.post(`/api/keys/${keyId}/revoke`)).status, 200)
    t.equal(d.admin.keys.get(keyId)?.status, 'revoked')
    t.equal((await owner.post(`/api/keys/${keyId}/reactivate`)).status, 409, 'a revoked key cannot come back')
  },
)

t.test(
  'event data: read while ClickHouse answers, 503 with Retry-After while it does not; health says so',
  async (t) => {
    const d = await startInProcessDashboard(t)
    const c = d.client()
    await c.signUp()
    t.equal((await c.get('/api/events')).status, 200)
    d.data.failing = true
    const down = await c.get('/api/events')
    t.match(down, { status: 503, body: { success: false, error: { code: 'SERVICE_UNAVAILABLE' } } })
    t.ok(Number(down.headers.get('retry-after')) > 0)
    t.notMatch(JSON.stringify(down.body), /ECONNREFUSED|8123/, 'no internals in the answer')
    const health = await fetch(`${d.url}/health`)
    t.equal(health.status, 503)
    t.ok(Number(health.headers.get('retry-after')) > 0, 'readiness says when to ask again, as every 503 does')
    t.same(
      await health.json(),
      { status: 'unavailable', checks: { clickhouse: { ok: false, detail: 'unavailable' } } },
      "ingest's health shape (H62)",
    )
    const live = await fetch(`${d.url}/health/live`)
    t.equal(live.status, 200, 'liveness does not depend on ClickHouse')
    t.same(await live.json(), { status: 'ok' })
  },
)

t.test('unknown API paths are 404 and known ones with another method 405', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  t.match(await c.get('/api/nothing-here'), { status: 404, body: { success: false, error: { code: 'NOT_FOUND' } } })
  const put = await c.request('PUT', '/api/keys', {})
  t.equal(put.status, 405)
  t.match(put.headers.get('allow'), /GET/)
})

t.test('a body that is not a JSON object is 400 in the error shape', async (t) => {
  const d = await startInProcessDashboard(t)
  const c = d.client()
  const res = await c.request('POST', '/api/signin', '{"email": ')
  t.equal(res.status, 400)
  t.match(res.body, { success: false, error: { code: 'BAD_REQUEST', message: String } })
})

t.test('400 VALIDATION_ERROR names the field: a sign-up and a key the API cannot take', async (t) => {
  const d = await startInProcessDashboard(t)
  const bad = await d.client().post('/api/signup', { email: 'not an email', password: 'long enough password' })
  t.match(bad, { status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: /email/ } } })
  const c = d.client()
  await c.signUp()
  const key = await c.post('/api/keys', { name: 'k', type: 'admin' })
  t.match(key, { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: /type/ } } })
  t.same((await c.get('/api/keys')).body.data, [], 'no key was made')
})

t.test(
  'keys: 409 KEY_LIMIT_REACHED at the cap of unrevoked keys, 409 CONFLICT to bring a revoked key back',
  async (t) => {
    const d = await startInProcessDashboard(t, { KEYS_MAX_PER_ACCOUNT: '2' })
    const c = d.client()
    await c.signUp()
    const first = await c.post('/api/keys', { name: 'a', type: 'live' })
    t.equal(first.status, 201)
    t.equal((await c.post('/api/keys', { name: 'b', type: 'test' })).status, 201)
    const third = await c.post('/api/keys', { name: 'c', type: 'live' })
    t.match(third, {
      status: 409,
      body: { success: false, error: { code: 'KEY_LIMIT_REACHED', details: { limit: 2 } } },
    })
    const keyId = first.body.data.key_id
    t.equal((await c.post(`/api/keys/${keyId}/revoke`)).status, 200)
    t.match(await c.post(`/api/keys/${keyId}/reactivate`), { status: 409, body: { error: { code: 'CONFLICT' } } })
    t.equal((await c.post('/api/keys', { name: 'c', type: 'live' })).status, 201, 'a revoked key frees its place')
  },
)

t.test('keys: 429 RATE_LIMIT_EXCEEDED with Retry-After past the key changes of a minute', async (t) => {
  const d = await startInProcessDashboard(t, { KEY_CHANGES_PER_MINUTE: '2' })
  const c = d.client()
  await c.signUp()
  for (const name of ['a', 'b']) t.equal((await c.post('/api/keys', { name, type: 'live' })).status, 201)
  const limited = await c.post('/api/keys', { name: 'c', type: 'live' })
  t.match(limited, { status: 429, body: { success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } } })
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'with Retry-After')
  t.equal((await c.get('/api/keys')).body.data.length, 2, 'the refused change made nothing')
})
