// The dashboard's caps (docs/security.md) against the real stack: sign-in bursts held at the limit before scrypt runs, limits per
// email and client address (from X-Forwarded-For of a trusted proxy), sign-up throttling, sessions
// revoked on the server (sign-out, sign out everywhere, password change), CSRF tokens bound to their
// session, and API keys never reading dashboard data.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'

const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } })
let hosts = 0

t.test('dashboard security', async (t) => {
  // The harness connects from 127.0.0.1, a trusted proxy by default, so X-Forwarded-For names the client.
  const s = await startDashboard(t, { env: { SIGNUP_MAX_PER_IP: '3' } })
  /** A browser at an address of its own, so sign-ups here stay under SIGNUP_MAX_PER_IP. */
  const browser = () => s.client(`192.0.2.${++hosts}`)

  t.test('a parallel burst of wrong passwords is held at the limit before any verify', async (t) => {
    const owner = browser()
    const { email, password } = await owner.signUp()
    const attacker = s.client()
    await attacker.get('/api/me')
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        attacker.post('/api/signin', { email, password: `wrong-password-${i}` }, from('198.51.100.10')),
      ),
    )
    const verified = results.filter((r) => r.status === 401)
    const refused = results.filter((r) => r.status === 429)
    t.ok(verified.length <= 5, `at most LOGIN_MAX_FAILURES (5) passwords were verified, got ${verified.length}`)
    t.equal(verified.length + refused.length, 20, 'every other attempt was refused')
    for (const r of refused) {
      t.equal(r.body.error.code, 'TOO_MANY_ATTEMPTS')
      t.ok(Number(r.headers.get('retry-after')) > 0, 'with Retry-After')
    }
    const still = await attacker.post('/api/signin', { email, password }, from('198.51.100.10'))
    t.equal(still.status, 429, 'the right password from that address waits too')

    // The owner, from another address behind the same proxy, is not locked out.
    const other = s.client()
    t.equal(
      (await other.post('/api/signin', { email, password }, from('198.51.100.20'))).status,
      200,
      'another client address signs in',
    )
    const spoofed = s.client()
    t.equal(
      (await spoofed.post('/api/signin', { email, password }, from('198.51.100.20, 198.51.100.10'))).status,
      429,
      'the proxy-appended address counts, not a spoofed left entry',
    )
  })

  t.test('sign-ups are throttled per client address', async (t) => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const r = await s
        .client()
        .post(
          '/api/signup',
          { email: `burst-${i}-${s.suffix}@example.com`, password: 'long enough password' },
          from('203.0.113.5'),
        )
      statuses.push(r.status)
      if (r.status === 429) t.ok(Number(r.headers.get('retry-after')) > 0, 'with Retry-After')
    }
    t.same(statuses, [201, 201, 201, 429], 'SIGNUP_MAX_PER_IP=3')
    t.equal(
      (
        await s
          .client()
          .post(
            '/api/signup',
            { email: `elsewhere-${s.suffix}@example.com`, password: 'long enough password' },
            from('203.0.113.6'),
          )
      ).status,
      201,
      'another address signs up',
    )
  })

  t.test('after sign-out the old session cookie is refused', async (t) => {
    const c = browser()
    await c.signUp()
    const old = c.cookies.get('dash_session')!
    t.equal((await c.post('/api/signout')).status, 200)
    const replay = browser()
    replay.cookies.set('dash_session', old)
    t.equal((await replay.get('/api/me')).status, 401, 'a copy of the cookie no longer works')
    t.equal((await replay.get('/api/keys')).status, 401)
  })

  t.test('sign out everywhere ends every session of the account', async (t) => {
    const laptop = browser()
    const { email, password } = await laptop.signUp()
    const phone = browser()
    t.equal((await phone.post('/api/signin', { email, password })).status, 200)
    t.equal((await laptop.post('/api/signout-everywhere')).status, 200)
    t.equal((await phone.get('/api/me')).status, 401, 'the other session ended')
    t.equal((await laptop.get('/api/me')).status, 401, 'and this one')
    const again = browser()
    t.equal((await again.post('/api/signin', { email, password })).status, 200, 'signing in again works')
    t.equal((await again.get('/api/me')).status, 200)
  })

  t.test('a password change ends the other sessions and keeps this one', async (t) => {
    const laptop = browser()
    const { email, password } = await laptop.signUp()
    const phone = browser()
    t.equal((await phone.post('/api/signin', { email, password })).status, 200)
    const stolen = phone.cookies.get('dash_session')!

    const wrong = await laptop.post('/api/password', {
      current_password: 'not it at all',
      new_password: 'a brand new password',
    })
    t.equal(wrong.status, 403, 'the current password is required')
    t.equal((await laptop.post('/api/password', { current_password: password, new_password: 'short' })).status, 400)
    t.equal(
      (await laptop.post('/api/password', { current_password: password, new_password: 'a brand new password' })).status,
      200,
    )

    t.equal((await laptop.get('/api/me')).status, 200, 'this browser stays signed in')
    t.equal((await phone.get('/api/me')).status, 401, 'the other session is refused')
    const replay = browser()
    replay.cookies.set('dash_session', stolen)
    t.equal((await replay.get('/api/me')).status, 401)
    t.equal((await browser().post('/api/signin', { email, password })).status, 401, 'the old password is gone')
    t.equal((await browser().post('/api/signin', { email, password: 'a brand new password' })).status, 200)
  })

  t.test('a CSRF token from another session is refused', async (t) => {
    const alice = browser()
    const bob = browser()
    await alice.signUp()
    await bob.signUp()
    const bobToken = bob.cookies.get('dash_csrf')!
    // Bob's token is validly signed by this server; planted in Alice's browser (cookie and header) it must not pass.
    const planted = browser()
    planted.cookies.set('dash_session', alice.cookies.get('dash_session')!)
    planted.cookies.set('dash_csrf', bobToken)
    const r = await planted.post('/api/keys', { name: 'planted', type: 'live' }, { csrf: decodeURIComponent(bobToken) })
    t.equal(r.status, 403)
    t.equal(r.body.error.code, 'CSRF_REJECTED')
    const anonToken = browser()
    await anonToken.get('/api/me')
    const pre = browser()
    pre.cookies.set('dash_session', alice.cookies.get('dash_session')!)
    pre.cookies.set('dash_csrf', anonToken.cookies.get('dash_csrf')!)
    t.equal(
      (await pre.post('/api/keys', { name: 'pre', type: 'live' }, { csrf: anonToken.csrf! })).status,
      403,
      'nor a token issued before sign-in',
    )
    t.equal((await alice.post('/api/keys', { name: 'mine', type: 'live' })).status, 201, "Alice's own token works")
    t.same(
      (await alice.get('/api/keys')).body.data.map((k: any) => k.name),
      ['mine'],
    )
  })

  t.test('an API key reads no data from the dashboard', async (t) => {
    const c = browser()
    await c.signUp()
    const { secret } = (await c.post('/api/keys', { name: 'server', type: 'live' })).body.data
    for (const path of [
      '/api/me',
      '/api/keys',
      '/api/events',
      '/api/top-events',
      '/api/usage',
      '/api/users/u1',
      '/api/live',
    ]) {
      const r = await fetch(s.dashboardUrl + path, { headers: { authorization: `Bearer ${secret}` } })
      t.equal(r.status, 401, `${path} with the key as bearer`)
      await r.body?.cancel()
    }
  })
})
