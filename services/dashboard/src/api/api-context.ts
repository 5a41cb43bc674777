// What the dashboard's route files share: its dependencies, the session state, and the helpers
// every resource uses (the signed-in account, its plan, sessions, and turning a failing accounts
// log or ClickHouse into 503).
import type Koa from 'koa'
import type { AccountRecord } from '../../../../schemas/records.js'
import type { AccountsAdmin } from '../../../shared/src/accounts/accounts-admin.js'
import type { PrivacyAdmin } from '../../../shared/src/privacy/privacy-admin.js'
import type { Logger } from '../../../shared/src/log.js'
import { planNamed, type Plan } from '../../../shared/src/accounts/plans.js'
import { isRetriable } from '../../../shared/src/errors.js'
import type { DashboardConfig } from '../config.js'
import { busy, DashboardError, queryTooLarge, tooManyRequests, unauthorized, unavailable } from '../errors.js'
import {
  newSession,
  sessionToken,
  newCsrfToken,
  setDashboardCookie,
  PASSWORD_MAX_LENGTH,
  HashGateBusy,
  type HashGate,
  type LoginThrottle,
  type SignupThrottle,
  type RequestThrottle,
  type SessionPayload,
} from '../auth/index.js'
import type { DashboardQueries } from './queries.js'
import type { DefinitionQueries } from './definitions-queries.js'
import type { PersonQueries } from './persons-queries.js'
import type { TrendQueries } from './trends-queries.js'
import type { FunnelQueries } from './funnels-queries.js'
import type { RetentionQueries } from './retention-queries.js'

import type { RefusedQueries } from './refused-queries.js'
import type { LiveHistory } from './live-history.js'
import type { LiveStreams } from './live-streams.js'
import { body, str } from './params.js'
import { readsTooMuch } from './query-bounds.js'

export interface ApiDeps {
  cfg: DashboardConfig
  admin: AccountsAdmin
  /** Erasure requests and receipts (A12); without it the /api/erasures routes are absent. */
  privacy?: PrivacyAdmin
  queries: DashboardQueries
  definitions: DefinitionQueries
  persons: PersonQueries
  /** The Trends read (U13); without it /api/trends is absent. */
  trends?: TrendQueries
  /** The Funnels read (U15); without it /api/funnels is absent. */
  funnels?: FunnelQueries
  /** The Retention read (U18); without it /api/retention-cohorts is absent. */
  retention?: RetentionQueries

  /** The Refused requests read (U16); without it /api/refused is absent. */
  refused?: RefusedQueries
  liveHistory: LiveHistory
  liveStreams: LiveStreams
  throttle: LoginThrottle
  signupThrottle: SignupThrottle
  /** Reads of event data and key changes per minute (H23, U5). */
  requests: RequestThrottle
  hashGate: HashGate
  plans: Readonly<Record<string, Plan>>
  log: Logger
}

export interface DashboardState {
  ip: string
  session?: SessionPayload
  account?: AccountRecord
}

export type Ctx = Koa.ParameterizedContext<DashboardState>

/** The session's account; 401 without a session. */
function account(ctx: Ctx): AccountRecord {
  if (!ctx.state.account) throw unauthorized()
  return ctx.state.account
}

/** The e-mail and password of a sign-up or sign-in body, the e-mail normalised. */
function credentials(ctx: Ctx) {
  const b = body(ctx)
  const email = str(b.email, 'email', { required: true, max: 254 })!.trim().toLowerCase()
  const password = str(b.password, 'password', { required: true, max: PASSWORD_MAX_LENGTH })!
  return { email, password, b }
}

/** Runs a change of the accounts log; a failure other than ours is 503 (the log is away). */
function accountChangeOf(d: ApiDeps) {
  return async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (err) {
      if (err instanceof DashboardError) throw err
      d.log.warn('account change failed', { what, err: err as Error })
      throw unavailable(`The accounts log (${what})`, err)
    }
  }
}

export type ApiHelpers = ReturnType<typeof apiHelpers>

export function apiHelpers(d: ApiDeps) {
  const { startSession, endSessionCookies } = sessionCookies(d)
  const planOf = (a: AccountRecord): Plan => planNamed(a.plan, d.admin.plans.values(), d.plans)

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

  const accountChange = accountChangeOf(d)

  const me = (a: AccountRecord) => {
    const plan = planOf(a)
    return {
      account_id: a.account_id,
      name: a.name,
      email: a.owner_email,
      plan: plan.name,
      created_at: new Date(a.created_at).toISOString(),
      ingest_url: d.cfg.ingestUrl,
    }
  }

  const ch = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (err) {
      // A programmer error (a query builder's SqlBindError is a TypeError) fails the same way on every
      // try: 500 INTERNAL_ERROR, not a 503 inviting retries (H81).
      if (err instanceof DashboardError || !isRetriable(err)) throw err
      d.log.warn('clickhouse query failed', { what, err: err as Error })
      if (readsTooMuch(err)) throw queryTooLarge(what, err)
      throw unavailable(`Event data (${what})`, err)
    }
  }

  return {
    planOf,
    startSession,
    endSessionCookies,
    scrypt,
    accountChange,
    me,
    account,
    credentials,
    ch,
    ...requestLimits(d, account),
  }
}

/** Per-minute limits on reads of event data (H23) and on key changes (U5). */
function requestLimits(d: ApiDeps, account: (ctx: Ctx) => AccountRecord) {
  const throttled = (buckets: Array<[string, number]>, what: string) => {
    const v = d.requests.begin(buckets)
    if (!v.allowed) throw tooManyRequests(v.retryAfterSeconds, what)
  }
  /** One read of event data, counted per session and per account (H23); 429 with Retry-After past either. */
  const countRead = (ctx: Ctx) => {
    const a = account(ctx)
    throttled(
      [
        [`read:s:${ctx.state.session!.sid}`, d.cfg.queriesPerMinute],
        [`read:a:${a.account_id}`, d.cfg.queriesPerMinute * 3],
      ],
      'event-data reads',
    )
  }
  /** One key change, counted per account (U5). */
  const countKeyChange = (ctx: Ctx) =>
    throttled([[`key:a:${account(ctx).account_id}`, d.cfg.keys.changesPerMinute]], 'key changes')

  return { countRead, countKeyChange }
}

/** The session cookie and the CSRF token bound to it (U1; names and attributes: auth/cookies.ts). */
function sessionCookies(d: ApiDeps) {
  const { cookieSecure: secure, cookies } = d.cfg
  const startSession = (ctx: Ctx, a: AccountRecord) => {
    const s = newSession(a, d.cfg.sessionTtlMs)
    setDashboardCookie(ctx, secure, cookies.session, sessionToken(d.cfg.sessionSecret, s), {
      httpOnly: true,
      maxAge: d.cfg.sessionTtlMs,
    })
    // A fresh CSRF token bound to the new session (no fixation of a token set before sign-in).
    setDashboardCookie(ctx, secure, cookies.csrf, newCsrfToken(d.cfg.sessionSecret, s.sid), { httpOnly: false })
  }

  const endSessionCookies = (ctx: Ctx) => {
    setDashboardCookie(ctx, secure, cookies.session, '', { httpOnly: true, maxAge: 0 })
    setDashboardCookie(ctx, secure, cookies.csrf, newCsrfToken(d.cfg.sessionSecret), { httpOnly: false })
  }
  return { startSession, endSessionCookies }
}
