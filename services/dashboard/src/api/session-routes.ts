// Sign-up, sign-in, sign-out and password change (U1): sessions in httpOnly SameSite cookies,
// throttled per email and address, password hashing behind the shared gate.
import type Router from '@koa/router'
import { randomBytes } from 'node:crypto'
import { conflict, invalidCredentials, tooManyAttempts, validation, wrongCurrentPassword } from '../errors.js'
import { hashPassword, verifyPassword, dummyHash, passwordProblem, PASSWORD_MAX_LENGTH } from '../auth/index.js'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { body, str } from './params.js'

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/

/** A readable, unique account id from the email's local part, e.g. alice-3f9a2c (ACCOUNT_ID_PATTERN). */
export function accountIdFor(email: string): string {
  const local = email
    .split('@')[0]!
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24)
  return `${local || 'acct'}-${randomBytes(3).toString('hex')}`
}

export function addSessionRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  addSignUpAndIn(r, d, h)
  addSignOutAndPassword(r, d, h)
}

function addSignUpAndIn(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { startSession, scrypt, me, credentials } = h
  // Sign-ups are serialized in this process so one email cannot create two accounts by racing.
  let signupChain: Promise<unknown> = Promise.resolve()

  r.post('/signup', async (ctx) => {
    const { email, password, b } = credentials(ctx)
    if (!EMAIL.test(email)) throw validation('email is not a valid address', { field: 'email' })
    const weak = passwordProblem(password)
    if (weak) throw validation(`password ${weak}`, { field: 'password' })
    const name = str(b.name, 'name', { max: 100 })?.trim()
    // Counted before scrypt runs, so a burst cannot make the server hash in parallel past the limit.
    const verdict = d.signupThrottle.begin(ctx.state.ip)
    if (!verdict.allowed) {
      ctx.set('Retry-After', String(verdict.retryAfterSeconds))
      throw tooManyAttempts(verdict.retryAfterSeconds, 'sign-ups from this address')
    }
    const passwordHash = await scrypt(ctx, () => hashPassword(password))
    const run = signupChain.then(async () => {
      if (d.admin.findAccountByEmail(email)) throw conflict('An account with this email exists; sign in instead')
      return d.admin.createAccount({
        accountId: accountIdFor(email),
        name: name || email,
        plan: 'hobby',
        ownerEmail: email,
        passwordHash,
      })
    })
    signupChain = run.catch(() => undefined)
    const a = await run
    d.log.info('account signed up', { account: a.account_id })
    startSession(ctx, a)
    ctx.status = 201
    ctx.body = { success: true, data: me(a) }
  })

  r.post('/signin', async (ctx) => {
    const { email, password } = credentials(ctx)
    // The attempt counts as a failure from here, before the asynchronous verify: a parallel burst
    // sees the earlier attempts of the burst and stops at the limit.
    const attempt = d.throttle.begin(email, ctx.state.ip)
    if (!attempt.allowed) {
      ctx.set('Retry-After', String(attempt.retryAfterSeconds))
      throw tooManyAttempts(attempt.retryAfterSeconds)
    }
    const a = d.admin.findAccountByEmail(email)
    const ok = await scrypt(ctx, async () =>
      a?.password_hash
        ? verifyPassword(password, a.password_hash)
        : (await verifyPassword(password, await dummyHash()), false),
    )
    if (!a || !ok || a.status !== 'active') throw invalidCredentials()
    attempt.succeed()
    startSession(ctx, a)
    ctx.body = { success: true, data: me(a) }
  })
}

function addSignOutAndPassword(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { startSession, endSessionCookies, scrypt, accountChange, account } = h
  // Sign-out ends this session on the server too: its id goes on the account record, so the old
  // cookie is refused by every dashboard instance, not only forgotten by this browser. The cookies
  // are cleared first, so even when the revocation cannot be written (503) this browser is signed out.
  r.post('/signout', async (ctx) => {
    const s = ctx.state.session
    endSessionCookies(ctx)
    if (s) await accountChange('sign-out', () => d.admin.revokeSession(s.a, s.sid, s.exp))
    d.liveStreams.sweep()
    ctx.body = { success: true }
  })

  r.post('/signout-everywhere', async (ctx) => {
    const a = account(ctx)
    endSessionCookies(ctx)
    await accountChange('sign out everywhere', () => d.admin.endAllSessions(a.account_id))
    d.liveStreams.sweep()
    d.log.info('all sessions ended', { account: a.account_id })
    ctx.body = { success: true }
  })

  // A password change needs the current password (a stolen session alone cannot take the account
  // over), is throttled like sign-in, ends every other session and starts a fresh one here.
  r.post('/password', async (ctx) => {
    const a = account(ctx)
    const b = body(ctx)
    const current = str(b.current_password, 'current_password', { required: true, max: PASSWORD_MAX_LENGTH })!
    const next = str(b.new_password, 'new_password', { required: true, max: PASSWORD_MAX_LENGTH })!
    const weak = passwordProblem(next)
    if (weak) throw validation(`new_password ${weak}`, { field: 'new_password' })
    const attempt = d.throttle.begin(a.owner_email ?? a.account_id, ctx.state.ip)
    if (!attempt.allowed) {
      ctx.set('Retry-After', String(attempt.retryAfterSeconds))
      throw tooManyAttempts(attempt.retryAfterSeconds, 'wrong passwords')
    }
    if (!a.password_hash || !(await scrypt(ctx, () => verifyPassword(current, a.password_hash!))))
      throw wrongCurrentPassword()
    attempt.succeed()
    const newHash = await scrypt(ctx, () => hashPassword(next))
    const updated = await accountChange('password change', () => d.admin.setPassword(a.account_id, newHash))
    d.liveStreams.sweep()
    d.log.info('password changed; other sessions ended', { account: a.account_id })
    startSession(ctx, updated)
    ctx.body = { success: true }
  })
}
