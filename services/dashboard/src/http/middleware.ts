// The dashboard's middleware, in the order createDashboardApp uses them: errors rendered in one
// place, security headers, the session, the CSRF check of state-changing requests, health and
// readiness.
import type Koa from 'koa'
import type { Ctx } from '../api/api-context.js'
import type { Logger } from '../../../shared/src/log.js'
import type { AccountsAdmin } from '../../../shared/src/accounts/accounts-admin.js'
import type { DashboardConfig } from '../config.js'
import { DashboardError, forbidden, unavailable } from '../errors.js'
import {
  readSession,
  sessionAllowed,
  checkCsrf,
  newCsrfToken,
  csrfSessionOf,
  setDashboardCookie,
  CSRF_HEADER,
} from '../auth/index.js'
import { clientIp } from '../../../shared/src/client-ip.js'
import {
  errorAnswer,
  INTERNAL_ERROR,
  type ReadinessReport,
  type RenderableError,
  serviceRoutes,
  setAnswer,
} from '../../../shared/src/http/index.js'

/** Seconds a client is told to wait while the dashboard is not ready. */
const NOT_READY_RETRY_AFTER_S = 5

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ')

/** Renders every error in the shared error shape (H62): the dashboard's own errors as they are, a
 *  client error of the body parser as BAD_REQUEST with its message, anything else as a 500 without
 *  internals, logged through app.on('error'). */
export function renderErrors() {
  return async (ctx: Ctx, next: Koa.Next) => {
    try {
      await next()
    } catch (err) {
      const e = asRenderable(err)
      // A header set before the error (a 503's own Retry-After) is kept: the error's figure is a default.
      const retryAfter = ctx.response.get('Retry-After')
      // Named field by field: an Error's message is not enumerable, so a spread of it would drop it.
      const { code, status, message, details } = e
      const headers = retryAfter ? { 'Retry-After': retryAfter } : undefined
      setAnswer(ctx, errorAnswer({ code, status, message, details, headers }))
      if (e.status >= 500) ctx.app.emit('error', err, ctx)
    }
  }
}

function asRenderable(err: unknown): RenderableError {
  if (err instanceof DashboardError) return err
  const status = (err as { status?: unknown })?.status
  if (typeof status === 'number' && status >= 400 && status < 500)
    return { code: 'BAD_REQUEST', status, message: (err as Error).message }
  return INTERNAL_ERROR
}

export function securityHeaders() {
  return async (ctx: Ctx, next: Koa.Next) => {
    ctx.set('Content-Security-Policy', CSP)
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.set('Referrer-Policy', 'same-origin')
    ctx.set('X-Frame-Options', 'DENY')
    if (ctx.path.startsWith('/api/')) ctx.set('Cache-Control', 'no-store')
    await next()
  }
}

/** Reads the session cookie and hands out the CSRF token bound to it. */
export function session(cfg: DashboardConfig, admin: AccountsAdmin) {
  return async (ctx: Ctx, next: Koa.Next) => {
    ctx.state.ip = clientIp(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for'), cfg.trustedProxies) || 'unknown'
    const s = readSession(cfg.sessionSecret, ctx.cookies.get(cfg.cookies.session))
    if (s) {
      const a = admin.accounts.get(s.a)
      // Sign-out, sign out everywhere, a password change or a disabled account end the session (server-side, on the account record).
      if (sessionAllowed(s, a)) {
        ctx.state.session = s
        ctx.state.account = a
      }
    }
    // Every visitor gets a signed CSRF token to echo in X-CSRF-Token (double submit), bound to the
    // session when there is one; a token of another (or no) session is replaced for the next request.
    const bound = csrfSessionOf(cfg.sessionSecret, ctx.cookies.get(cfg.cookies.csrf))
    if (bound === undefined || (ctx.state.session && bound !== ctx.state.session.sid)) {
      setDashboardCookie(
        ctx,
        cfg.cookieSecure,
        cfg.cookies.csrf,
        newCsrfToken(cfg.sessionSecret, ctx.state.session?.sid),
        { httpOnly: false },
      )
    }
    await next()
  }
}

export function csrfGuard(cfg: DashboardConfig, log: Logger) {
  return async (ctx: Ctx, next: Koa.Next) => {
    const verdict = checkCsrf({
      secret: cfg.sessionSecret,
      method: ctx.method,
      origin: ctx.get('Origin') || undefined,
      // Koa 3's ctx.origin is the Origin header; our own origin is the protocol and Host we were reached at.
      ownOrigin: `${ctx.protocol}://${ctx.host}`,
      allowedOrigins: cfg.allowedOrigins,
      cookie: ctx.cookies.get(cfg.cookies.csrf),
      header: ctx.get(CSRF_HEADER) || undefined,
      sessionId: ctx.state.session?.sid,
    })
    if (!verdict.ok) {
      log.warn('state-changing request refused', { path: ctx.path, reason: verdict.reason, ip: ctx.state.ip })
      throw forbidden(verdict.reason)
    }
    await next()
  }
}

export interface HealthDeps {
  /** Readiness: ready only when every dependency answers; checks names each one's state. */
  health: () => Promise<ReadinessReport>
  /** False while start() still waits for Kafka, the registry, ClickHouse or the accounts table. */
  ready?: () => boolean
}

/** Liveness and readiness in the shape every service answers (H62); the API answers 503 until ready. */
export function healthAndReadiness(d: HealthDeps) {
  const health = serviceRoutes({ readiness: d.health })
  return async (ctx: Ctx, next: Koa.Next) =>
    health(ctx, async () => {
      // Until the accounts table is loaded the API cannot answer truthfully (a sign-in would find no account).
      if (ctx.path.startsWith('/api/') && d.ready && !d.ready()) {
        ctx.set('Retry-After', String(NOT_READY_RETRY_AFTER_S))
        throw unavailable('The dashboard (still waiting for its dependencies)')
      }
      await next()
    })
}
