import t from 'tap'
import { randomBytes } from 'node:crypto'
import { hashPassword, verifyPassword } from './password.js'
import { newSession, readSession, sessionAllowed, sessionToken, passwordFingerprint, sign, unsign } from './tokens.js'
import { checkCsrf, csrfSessionOf, newCsrfToken } from './csrf.js'
import { LoginThrottle, SignupThrottle } from './login-throttle.js'
import { HashGate } from './hash-gate.js'

const FAST = { N: 1024, r: 8, p: 1, keylen: 32 }
const secret = randomBytes(32)

t.test('scrypt: a hash verifies its password only', async (t) => {
  const stored = await hashPassword('correct horse battery', FAST)
  t.match(stored, /^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/)
  t.equal(await verifyPassword('correct horse battery', stored), true)
  t.equal(await verifyPassword('correct horse batterY', stored), false)
  t.equal(await verifyPassword('', stored), false)
  t.not(await hashPassword('correct horse battery', FAST), stored, 'a fresh salt each time')
  t.equal(await verifyPassword('x', 'not-a-hash'), false, 'malformed hash: false, no throw')
  t.equal(await verifyPassword('x', 'scrypt$1000$8$1$AAAA$AAAA'), false, 'N not a power of two')
  t.equal(await verifyPassword('x', stored.replace(/\$[\w-]+$/, '$AAAA')), false, 'too-short hash')
})

t.test('default scrypt parameters round-trip', async (t) => {
  const stored = await hashPassword('pässwörd-ñ')
  t.equal(await verifyPassword('pässwörd-ñ', stored), true)
  t.equal(await verifyPassword('passwörd-ñ', stored), false)
})

t.test('signed tokens: tampering, other purpose, other secret', async (t) => {
  const tok = sign(secret, 'session', { a: 'acme' })
  t.same(unsign(secret, 'session', tok), { a: 'acme' })
  t.equal(unsign(secret, 'csrf', tok), undefined, 'a session token is no CSRF token')
  t.equal(unsign(randomBytes(32), 'session', tok), undefined)
  const [body, mac] = tok.split('.')
  const forged = Buffer.from(JSON.stringify({ a: 'other' })).toString('base64url')
  t.equal(unsign(secret, 'session', `${forged}.${mac}`), undefined, 'payload swapped under the same mac')
  t.equal(
    unsign(secret, 'session', `${body}.${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`),
    undefined,
    'a changed mac (never the same one: 1 in 64 macs end in A)',
  )
  t.equal(unsign(secret, 'session', undefined), undefined)
  t.equal(unsign(secret, 'session', 'garbage'), undefined)
})

t.test('session cookie: expiry and password fingerprint', async (t) => {
  const now = 1_700_000_000_000
  const s = newSession({ account_id: 'acme', password_hash: 'scrypt$hash', session_version: 3 }, 3_600_000, now)
  const tok = sessionToken(secret, s)
  t.equal(readSession(secret, tok, now + 1000)?.a, 'acme')
  t.equal(readSession(secret, tok, now + 1000)?.sv, 3)
  t.equal(readSession(secret, tok, now + 3_600_001), undefined, 'expired')
  t.equal(s.pv, passwordFingerprint('scrypt$hash'))
  t.not(passwordFingerprint('scrypt$other'), s.pv)
  t.not(newSession({ account_id: 'acme', password_hash: 'scrypt$hash' }, 1, now).sid, s.sid)
  const { sv: _sv, ...old } = s
  t.equal(
    readSession(secret, sign(secret, 'session', old), now)?.sv,
    0,
    'a token from before session versions reads as version 0',
  )
})

t.test('server-side revocation: version, revoked ids, password, status', async (t) => {
  const account = {
    account_id: 'acme',
    name: 'Acme',
    plan: 'hobby',
    status: 'active' as const,
    owner_email: 'a@x.io',
    password_hash: 'scrypt$hash',
    created_at: 1,
    updated_at: 1,
    session_version: 2,
    revoked_sessions: [],
  }
  const s = newSession(account, 3_600_000)
  t.equal(sessionAllowed(s, account), true)
  t.equal(sessionAllowed(s, undefined), false, 'unknown account')
  t.equal(sessionAllowed(s, { ...account, account_id: 'other' }), false)
  t.equal(sessionAllowed(s, { ...account, session_version: 3 }), false, 'signed out everywhere')
  t.equal(
    sessionAllowed(s, { ...account, revoked_sessions: [{ sid: s.sid, expires_at: s.exp }] }),
    false,
    'this session signed out',
  )
  t.equal(
    sessionAllowed(s, { ...account, revoked_sessions: [{ sid: 'another', expires_at: s.exp }] }),
    true,
    'another session signed out',
  )
  t.equal(sessionAllowed(s, { ...account, password_hash: 'scrypt$new' }), false, 'password changed')
  t.equal(sessionAllowed(s, { ...account, status: 'disabled' }), false, 'account disabled')
})

t.test('CSRF: origin check and signed double submit', async (t) => {
  const tok = newCsrfToken(secret)
  const base = { secret, ownOrigin: 'http://127.0.0.1:8082', cookie: tok, header: tok }
  t.same(checkCsrf({ ...base, method: 'POST', origin: 'http://127.0.0.1:8082' }), { ok: true })
  t.same(checkCsrf({ ...base, method: 'POST' }), { ok: true }, 'no Origin header: the token alone')
  t.same(
    checkCsrf({ ...base, method: 'GET', cookie: undefined, header: undefined, origin: 'http://evil.test' }),
    { ok: true },
    'safe methods pass',
  )
  t.match(checkCsrf({ ...base, method: 'POST', origin: 'http://evil.test' }), { ok: false, reason: /cross-origin/ })
  t.same(
    checkCsrf({ ...base, method: 'POST', origin: 'http://admin.test', allowedOrigins: new Set(['http://admin.test']) }),
    { ok: true },
  )
  t.match(checkCsrf({ ...base, method: 'DELETE', header: undefined }), { ok: false, reason: /missing/ })
  t.match(checkCsrf({ ...base, method: 'POST', header: newCsrfToken(secret) }), { ok: false, reason: /does not match/ })
  const unsigned = 'abc.def'
  t.match(
    checkCsrf({ ...base, method: 'POST', cookie: unsigned, header: unsigned }),
    { ok: false, reason: /not issued/ },
    'a cookie planted by someone else',
  )
  t.match(checkCsrf({ ...base, method: 'POST', cookie: newCsrfToken(randomBytes(32)), header: undefined }), {
    ok: false,
  })

  const mine = newCsrfToken(secret, 'session-1')
  const theirs = newCsrfToken(secret, 'session-2')
  t.equal(csrfSessionOf(secret, mine), 'session-1')
  t.equal(csrfSessionOf(secret, tok), null, 'an unbound token')
  t.equal(csrfSessionOf(secret, 'x.y'), undefined)
  t.same(
    checkCsrf({ ...base, method: 'POST', cookie: mine, header: mine, sessionId: 'session-1' }),
    { ok: true },
    'the token of this session',
  )
  t.match(
    checkCsrf({ ...base, method: 'POST', cookie: theirs, header: theirs, sessionId: 'session-1' }),
    { ok: false, reason: /another session/ },
    "another session's token",
  )
  t.match(
    checkCsrf({ ...base, method: 'POST', sessionId: 'session-1' }),
    { ok: false, reason: /another session/ },
    'an unbound token while signed in',
  )
  t.same(
    checkCsrf({ ...base, method: 'POST', cookie: mine, header: mine }),
    { ok: true },
    'no valid session (e.g. signing in again): any token of ours',
  )
})

t.test('login throttle: an attempt counts before the verify, per email and address, success clears', async (t) => {
  const th = new LoginThrottle({ maxFailures: 3, windowMs: 60_000 })
  const now = 1_000_000
  // A burst: every attempt is admitted (or not) before any verify finishes.
  const burst = Array.from({ length: 10 }, (_, i) => th.begin(i % 2 ? 'A@x.io' : 'a@x.io', '1.1.1.1', now + i))
  t.equal(burst.filter((a) => a.allowed).length, 3, 'only maxFailures attempts of a parallel burst pass')
  const v = burst[9]!
  t.equal(v.allowed, false)
  t.equal(v.retryAfterSeconds, 60)
  t.equal(th.begin('a@x.io', '2.2.2.2', now + 10).allowed, true, 'another address is not locked out of that email')
  t.equal(th.begin('b@x.io', '1.1.1.1', now + 10).allowed, true, 'another email from that address is not blocked')
  t.equal(th.begin('a@x.io', '1.1.1.1', now + 60_001).allowed, true, 'the oldest attempt aged out')

  const ok = new LoginThrottle({ maxFailures: 2, windowMs: 60_000 })
  for (let i = 0; i < 5; i++) {
    const a = ok.begin('c@x.io', '3.3.3.3', now)
    t.equal(a.allowed, true, `successful sign-in ${i + 1} is not held back by earlier successes`)
    a.succeed()
  }
  ok.begin('c@x.io', '3.3.3.3', now)
  ok.begin('c@x.io', '3.3.3.3', now).succeed()
  t.equal(ok.begin('c@x.io', '3.3.3.3', now).allowed, true, 'a success clears the failures of that email and address')

  const ipOnly = new LoginThrottle({ maxFailures: 100, windowMs: 60_000, maxFailuresPerIp: 5 })
  for (let i = 0; i < 5; i++) ipOnly.begin(`u${i}@x.io`, '9.9.9.9', now)
  t.equal(
    ipOnly.begin('fresh@x.io', '9.9.9.9', now + 1).allowed,
    false,
    'many emails from one address are throttled too',
  )

  const spread = new LoginThrottle({ maxFailures: 5, windowMs: 60_000, maxFailuresPerEmail: 4 })
  for (let i = 0; i < 4; i++) spread.begin('d@x.io', `10.0.0.${i}`, now)
  t.equal(
    spread.begin('d@x.io', '10.0.0.99', now).allowed,
    false,
    'one email guessed from many addresses is throttled at its own limit',
  )
})

t.test('sign-up throttle: per address, counted on admission', async (t) => {
  const th = new SignupThrottle({ maxPerIp: 2, windowMs: 3_600_000 })
  const now = 5_000_000
  t.same(
    [th.begin('1.1.1.1', now), th.begin('1.1.1.1', now), th.begin('1.1.1.1', now)].map((v) => v.allowed),
    [true, true, false],
  )
  t.equal(th.begin('1.1.1.1', now).retryAfterSeconds, 3600)
  t.equal(th.begin('2.2.2.2', now).allowed, true, 'another address signs up')
  t.equal(th.begin('1.1.1.1', now + 3_600_001).allowed, true)
})

t.test('hash gate: a bounded number run, a bounded number wait, the rest are refused at once', async (t) => {
  const gate = new HashGate({ running: 2, waiting: 1 })
  const releases: Array<() => void> = []
  const started: number[] = []
  const job = (i: number) =>
    gate.run(() => new Promise<number>((resolve) => (started.push(i), releases.push(() => resolve(i)))))
  const a = job(1)
  const b = job(2)
  const c = job(3)
  await t.rejects(job(4), { code: 'HASH_GATE_BUSY' }, 'the fourth is refused while two run and one waits')
  await new Promise((r) => setImmediate(r))
  t.same(started, [1, 2], 'two run at once')
  releases.shift()!()
  t.equal(await a, 1)
  await new Promise((r) => setImmediate(r))
  t.same(started, [1, 2, 3], 'the waiting one starts when a slot frees')
  releases.shift()!()
  releases.shift()!()
  t.same(await Promise.all([b, c]), [2, 3])
  t.equal(await gate.run(async () => 'free again'), 'free again')
  await t.rejects(
    gate.run(async () => {
      throw new Error('boom')
    }),
    /boom/,
    'a failing job frees its slot',
  )
  t.equal(await gate.run(async () => 'still free'), 'still free')
})
