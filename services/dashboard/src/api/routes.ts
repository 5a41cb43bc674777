// The dashboard's JSON API under /api. Every read and every change is scoped to the account of the
// session (ctx.state.account); ids in paths are checked to belong to it. Account and key changes go
// through AccountsAdmin, so they are records on the accounts topic (A1).
import Router from '@koa/router'
import type Koa from 'koa'
import { randomBytes } from 'node:crypto'
import type { AccountRecord, ApiKeyRecord } from '../../../../schemas/records.js'
import { AdminError, type AccountsAdmin } from '../../../shared/src/accounts/accounts-admin.js'
import type { Logger } from '../../../shared/src/log.js'
import { FALLBACK_PLAN_NAME, normalizePlanName, planFromRecord, type Plan } from '../../../shared/src/accounts/plans.js'
import { monthKeyOf } from '../../../shared/src/usage/month-key.js'
import type { DashboardConfig } from '../config.js'
import { busy, conflict, DashboardError, invalidCredentials, notFound, tooManyAttempts, unauthorized, unavailable, validation, wrongCurrentPassword } from '../errors.js'
import {
  hashPassword, verifyPassword, dummyHash, newSession, sessionToken, newCsrfToken, CSRF_COOKIE,
  PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, HashGateBusy, type HashGate, type LoginThrottle, type SignupThrottle, type SessionPayload,
} from '../auth/index.js'
import type { DashboardQueries, Environment } from './queries.js'
import { openLiveFeed, pipeSse } from './live-proxy.js'

export const SESSION_COOKIE = 'dash_session'

export interface ApiDeps {
  cfg: DashboardConfig
  admin: AccountsAdmin
  queries: DashboardQueries
  throttle: LoginThrottle
  signupThrottle: SignupThrottle
  hashGate: HashGate
  plans: Readonly<Record<string, Plan>>
  log: Logger
}

export interface DashboardState {
  ip: string
  session?: SessionPayload
  account?: AccountRecord
}

type Ctx = Koa.ParameterizedContext<DashboardState>

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/
const DAY = 86_400_000

function body(ctx: Ctx): Record<string, unknown> {
  const b = (ctx.request as any).body
  return b && typeof b === 'object' && !Array.isArray(b) ? b : {}
}

function str(v: unknown, field: string, opts: { max?: number; required?: boolean } = {}): string | undefined {
  if (v === undefined || v === null || v === '') {
    if (opts.required) throw validation(`${field} is required`, { field })
    return undefined
  }
  if (typeof v !== 'string') throw validation(`${field} must be a string`, { field })
  if (v.length > (opts.max ?? 255)) throw validation(`${field} is too long (at most ${opts.max ?? 255} characters)`, { field })
  return v
}

function q(ctx: Ctx, name: string, max = 255): string | undefined {
  const v = ctx.query[name]
  return str(Array.isArray(v) ? v[0] : v, name, { max })
}

function envParam(ctx: Ctx, name = 'environment'): Environment | undefined {
  const v = q(ctx, name)
  if (v === undefined || v === 'all') return undefined
  if (v !== 'live' && v !== 'test') throw validation(`${name} must be live, test or all`, { field: name })
  return v
}

function intParam(ctx: Ctx, name: string, def: number, min: number, max: number): number {
  const v = q(ctx, name)
  if (v === undefined) return def
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max) throw validation(`${name} must be an integer from ${min} to ${max}`, { field: name })
  return n
}

function timeParam(ctx: Ctx, name: string, def: number): Date {
  const v = q(ctx, name, 64)
  if (v === undefined) return new Date(def)
  const d = new Date(/^\d+$/.test(v) ? Number(v) : v)
  if (!Number.isFinite(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 2105) throw validation(`${name} must be an ISO 8601 time`, { field: name })
  return d
}

function range(ctx: Ctx, defaultDays: number): { from: Date; to: Date } {
  const now = Date.now()
  const to = timeParam(ctx, 'to', now + 60_000)
  const from = timeParam(ctx, 'from', to.getTime() - defaultDays * DAY)
  if (from >= to) throw validation('from must be before to', { field: 'from' })
  if (to.getTime() - from.getTime() > 366 * DAY) throw validation('the range is at most 366 days', { field: 'from' })
  return { from, to }
}

export const keyView = (k: ApiKeyRecord, lastUsed?: number) => ({
  key_id: k.key_id,
  name: k.name,
  type: k.type,
  masked: k.masked,
  status: k.status,
  created_at: new Date(k.created_at).toISOString(),
  updated_at: new Date(k.updated_at).toISOString(),
  last_used_at: lastUsed ? new Date(lastUsed).toISOString() : null,
})

/** A readable, unique account id from the email's local part, e.g. alice-3f9a2c (ACCOUNT_ID_PATTERN). */
export function accountIdFor(email: string): string {
  const local = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24)
  return `${local || 'acct'}-${randomBytes(3).toString('hex')}`
}

export function createApiRouter(d: ApiDeps): Router<DashboardState> {
  const r = new Router<DashboardState>({ prefix: '/api' })
  // Sign-ups are serialized in this process so one email cannot create two accounts by racing.
  let signupChain: Promise<unknown> = Promise.resolve()

  const planOf = (a: AccountRecord): Plan => {
    const name = normalizePlanName(a.plan)
    for (const p of d.admin.plans.values()) if (normalizePlanName(p.name) === name) return planFromRecord(p)
    return d.plans[name] ?? d.plans[FALLBACK_PLAN_NAME]!
  }

  const startSession = (ctx: Ctx, a: AccountRecord) => {
    const s = newSession(a, d.cfg.sessionTtlMs)
    ctx.cookies.set(SESSION_COOKIE, sessionToken(d.cfg.sessionSecret, s), {
      httpOnly: true, sameSite: 'strict', secure: d.cfg.cookieSecure, path: '/', maxAge: d.cfg.sessionTtlMs, overwrite: true,
    })
    // A fresh CSRF token bound to the new session (no fixation of a token set before sign-in).
    ctx.cookies.set(CSRF_COOKIE, newCsrfToken(d.cfg.sessionSecret, s.sid), { httpOnly: false, sameSite: 'strict', secure: d.cfg.cookieSecure, path: '/', overwrite: true })
  }

  const endSessionCookies = (ctx: Ctx) => {
    ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: d.cfg.cookieSecure, path: '/', maxAge: 0, overwrite: true })
    ctx.cookies.set(CSRF_COOKIE, newCsrfToken(d.cfg.sessionSecret), { httpOnly: false, sameSite: 'strict', secure: d.cfg.cookieSecure, path: '/', overwrite: true })
  }

  /** Password hashing through the shared gate; a full line is 503 with Retry-After. */
  const scrypt = async <T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> => {
    try {
      return await d.hashGate.run(fn)
    } catch (err) {
      if (!(err instanceof HashGateBusy)) throw err
      ctx.set('Retry-After', '1')
      throw busy(err)
    }
  }

  const accountChange = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (err) {
      if (err instanceof DashboardError) throw err
      d.log.warn('account change failed', { what, err: err as Error })
      throw unavailable(`The accounts log (${what})`, err)
    }
  }

  const me = (a: AccountRecord) => {
    const plan = planOf(a)
    return { account_id: a.account_id, name: a.name, email: a.owner_email, plan: plan.name, created_at: new Date(a.created_at).toISOString(), ingest_url: d.cfg.ingestUrl }
  }

  const account = (ctx: Ctx): AccountRecord => {
    if (!ctx.state.account) throw unauthorized()
    return ctx.state.account
  }

  const credentials = (ctx: Ctx) => {
    const b = body(ctx)
    const email = str(b.email, 'email', { required: true, max: 254 })!.trim().toLowerCase()
    const password = str(b.password, 'password', { required: true, max: PASSWORD_MAX_LENGTH })!
    return { email, password, b }
  }

  const ch = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (err) {
      if (err instanceof DashboardError) throw err
      d.log.warn('clickhouse query failed', { what, err: err as Error })
      throw unavailable(`Event data (${what})`, err)
    }
  }

  r.post('/signup', async (ctx) => {
    const { email, password, b } = credentials(ctx)
    if (!EMAIL.test(email)) throw validation('email is not a valid address', { field: 'email' })
    if (password.length < PASSWORD_MIN_LENGTH) throw validation(`password must have at least ${PASSWORD_MIN_LENGTH} characters`, { field: 'password' })
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
      return d.admin.createAccount({ accountId: accountIdFor(email), name: name || email, plan: 'hobby', ownerEmail: email, passwordHash })
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
    const ok = await scrypt(ctx, async () => (a?.password_hash ? verifyPassword(password, a.password_hash) : (await verifyPassword(password, await dummyHash()), false)))
    if (!a || !ok || a.status !== 'active') throw invalidCredentials()
    attempt.succeed()
    startSession(ctx, a)
    ctx.body = { success: true, data: me(a) }
  })

  // Sign-out ends this session on the server too: its id goes on the account record, so the old
  // cookie is refused by every dashboard instance, not only forgotten by this browser. The cookies
  // are cleared first, so even when the revocation cannot be written (503) this browser is signed out.
  r.post('/signout', async (ctx) => {
    const s = ctx.state.session
    endSessionCookies(ctx)
    if (s) await accountChange('sign-out', () => d.admin.revokeSession(s.a, s.sid, s.exp))
    ctx.body = { success: true }
  })

  r.post('/signout-everywhere', async (ctx) => {
    const a = account(ctx)
    endSessionCookies(ctx)
    await accountChange('sign out everywhere', () => d.admin.endAllSessions(a.account_id))
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
    if (next.length < PASSWORD_MIN_LENGTH) throw validation(`new_password must have at least ${PASSWORD_MIN_LENGTH} characters`, { field: 'new_password' })
    const attempt = d.throttle.begin(a.owner_email ?? a.account_id, ctx.state.ip)
    if (!attempt.allowed) {
      ctx.set('Retry-After', String(attempt.retryAfterSeconds))
      throw tooManyAttempts(attempt.retryAfterSeconds, 'wrong passwords')
    }
    if (!a.password_hash || !(await scrypt(ctx, () => verifyPassword(current, a.password_hash!)))) throw wrongCurrentPassword()
    attempt.succeed()
    const newHash = await scrypt(ctx, () => hashPassword(next))
    const updated = await accountChange('password change', () => d.admin.setPassword(a.account_id, newHash))
    d.log.info('password changed; other sessions ended', { account: a.account_id })
    startSession(ctx, updated)
    ctx.body = { success: true }
  })

  r.get('/me', async (ctx) => {
    ctx.body = { success: true, data: me(account(ctx)) }
  })

  r.get('/keys', async (ctx) => {
    const a = account(ctx)
    const lastUsed = await d.queries.keysLastUsed(a.account_id).catch((err) => {
      d.log.warn('last-used times unavailable', { err: err as Error })
      return new Map<string, number>()
    })
    ctx.body = { success: true, data: d.admin.keysOf(a.account_id).map((k) => keyView(k, lastUsed.get(k.key_id))) }
  })

  r.post('/keys', async (ctx) => {
    const a = account(ctx)
    const b = body(ctx)
    const name = str(b.name, 'name', { required: true, max: 100 })!.trim()
    if (!name) throw validation('name is required', { field: 'name' })
    const type = b.type ?? 'live'
    if (type !== 'live' && type !== 'test') throw validation('type must be live or test', { field: 'type' })
    const { secret, record } = await d.admin.createKey({ accountId: a.account_id, name, type })
    d.log.info('key created', { account: a.account_id, key_id: record.key_id, type })
    ctx.status = 201
    ctx.body = { success: true, data: { ...keyView(record), secret } }
  })

  const STATUS: Record<string, 'active' | 'inactive' | 'revoked'> = { deactivate: 'inactive', reactivate: 'active', revoke: 'revoked' }
  r.post('/keys/:keyId/:action', async (ctx) => {
    const a = account(ctx)
    const status = STATUS[ctx.params.action!]
    if (!status) throw notFound('Action')
    try {
      const k = await d.admin.setKeyStatus(ctx.params.keyId!, status, a.account_id)
      d.log.info('key status changed', { account: a.account_id, key_id: k.key_id, status })
      ctx.body = { success: true, data: keyView(k) }
    } catch (err) {
      if (err instanceof AdminError && err.code === 'NOT_FOUND') throw notFound('Key')
      if (err instanceof AdminError && err.code === 'CONFLICT') throw conflict(err.message)
      throw err
    }
  })

  r.get('/usage', async (ctx) => {
    const a = account(ctx)
    const plan = planOf(a)
    const days = intParam(ctx, 'days', 3, 1, 31)
    const now = Date.now()
    const month = monthKeyOf(now)
    const to = new Date(now - (now % 3_600_000) + 3_600_000)
    const from = new Date(to.getTime() - days * DAY)
    const [usage, minute, hourly] = await ch('usage', () =>
      Promise.all([d.queries.monthUsage(a.account_id, month), d.queries.requestsThisMinute(a.account_id, now), d.queries.eventsPerHour(a.account_id, from, to)]),
    )
    const [y, m] = month.split('-').map(Number) as [number, number]
    ctx.body = {
      success: true,
      data: {
        plan: { name: plan.name, requests_per_minute: plan.requestsPerMinute, events_per_second: plan.eventsPerSecond, events_per_month: plan.eventsPerMonth, emails_per_month: plan.emailsPerMonth },
        month,
        resets_at: new Date(Date.UTC(y, m, 1)).toISOString(),
        // H5/H6: only live-key events count toward the limit; test events are shown apart.
        events_this_month: { live: usage.live, test: usage.test, limit: plan.eventsPerMonth },
        // U2: no emails are sent yet; the counter stays at zero until they are.
        emails_this_month: { sent: usage.emails, limit: plan.emailsPerMonth },
        requests_this_minute: {
          count: minute.count,
          limit: plan.requestsPerMinute,
          window_start: new Date(minute.windowStart).toISOString(),
          source: 'accepted requests projected to ClickHouse in the current minute window',
        },
        events_per_hour: hourly,
      },
    }
  })

  r.get('/events', async (ctx) => {
    const a = account(ctx)
    const f = { event: q(ctx, 'event'), userId: q(ctx, 'user_id'), environment: envParam(ctx), ...range(ctx, 7), limit: intParam(ctx, 'limit', 100, 1, 1000) }
    ctx.body = { success: true, data: await ch('events', () => d.queries.recentEvents(a.account_id, f)) }
  })

  r.get('/top-events', async (ctx) => {
    const a = account(ctx)
    const f = { environment: envParam(ctx), ...range(ctx, 7), limit: intParam(ctx, 'limit', 10, 1, 100) }
    ctx.body = { success: true, data: await ch('top events', () => d.queries.topEvents(a.account_id, f)) }
  })

  r.get('/users/:userId', async (ctx) => {
    const a = account(ctx)
    const userId = str(ctx.params.userId, 'user id', { required: true })!
    const environment = envParam(ctx)
    const [profiles, events] = await ch('user', () =>
      Promise.all([
        d.queries.userProfiles(a.account_id, userId, environment),
        d.queries.recentEvents(a.account_id, { userId, environment, from: new Date(0), to: new Date(Date.now() + 60_000), limit: 50 }),
      ]),
    )
    if (profiles.length === 0 && events.length === 0) throw notFound('User')
    ctx.body = { success: true, data: { user_id: userId, profiles, recent_events: events } }
  })

  r.get('/live', async (ctx) => {
    const a = account(ctx)
    const abort = new AbortController()
    const upstream = await openLiveFeed({
      projectorUrl: d.cfg.projectorUrl,
      liveToken: d.cfg.liveToken,
      accountId: a.account_id,
      filters: { event: q(ctx, 'event'), userId: q(ctx, 'user_id'), environment: envParam(ctx) },
      signal: abort.signal,
    })
    ctx.respond = false
    pipeSse(upstream, ctx.res, abort, d.log)
  })

  return r
}
