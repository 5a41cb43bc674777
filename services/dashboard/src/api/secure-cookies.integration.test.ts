// With COOKIE_SECURE (the dashboard behind a TLS-terminating proxy, so the connection it sees is
// plain http), the dashboard works and its cookies are `__Host-` prefixed, Secure, Path=/, with no
// Domain (auth/cookies.ts); an unprefixed cookie carrying the same session is not a session.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'

t.test('secure cookies behind a TLS proxy', async (t) => {
  const s = await startDashboard(t, { env: { COOKIE_SECURE: 'true' } })
  const c = s.client()
  const first = await c.get('/api/me')
  t.equal(first.status, 401, 'answered, not refused for setting a Secure cookie over the plain hop')
  const csrf = first.headers.getSetCookie().find((x) => x.startsWith('__Host-dash_csrf='))
  t.ok(csrf, 'the CSRF cookie has the __Host- prefix')
  t.match(csrf, /; *secure/i)
  t.match(csrf, /; *path=\/(;|$)/i)
  t.notMatch(csrf, /domain=/i)

  const signup = await c.post('/api/signup', {
    email: `u-${Date.now()}@example.com`,
    password: 'correct horse battery',
  })
  t.equal(signup.status, 201)
  const session = signup.headers.getSetCookie().find((x) => x.startsWith('__Host-dash_session='))
  t.ok(session, 'the session cookie has the __Host- prefix')
  t.match(session, /; *secure/i)
  t.match(session, /; *httponly/i)
  t.match(session, /; *samesite=strict/i)
  t.notMatch(session, /domain=/i)
  t.equal((await c.get('/api/me')).status, 200, 'the session works')
  t.equal((await c.post('/api/keys', { name: 'k', type: 'live' })).status, 201, 'and so does the CSRF token')

  const planted = s.client()
  planted.cookies.set('dash_session', c.cookies.get('__Host-dash_session')!)
  t.equal(
    (await planted.get('/api/me')).status,
    401,
    'an unprefixed cookie (settable by a sibling subdomain) is ignored',
  )

  t.equal((await c.post('/api/signout')).status, 200)
  t.equal(c.cookies.has('__Host-dash_session'), false, 'sign-out clears the prefixed cookie')
})
