// The one place that renders every ingest error as shape 1 (docs/api.md Errors; the body is the shared skeleton's, H62) and makes sure
// every response carries rate-limit headers (H2), counted ones or the client address's bucket.
import type Koa from 'koa'
import type { Logger } from '../../../shared/src/log.js'
import { errorAnswer, INTERNAL_ERROR, setAnswer } from '../../../shared/src/http/index.js'
import { errors, ServiceError } from '../errors.js'
import { ipBucket, rateLimitHeaders, type Limits } from '../limits/index.js'
import { clientIp } from './client-ip.js'
import type { Ctx } from './context.js'
import type { IngestMetrics } from './metrics.js'
import type { RefusalAggregator } from '../refusals/refusal-aggregator.js'

export interface ErrorMiddlewareDeps {
  trustedProxies: ReadonlySet<string>
  ipRequestsPerMinute: number
  limits: Limits
  log: Logger
  now: () => number
  metrics?: IngestMetrics
  draining?: () => boolean
  /** H65: refusals of authenticated requests, counted for their account. */
  refusals?: RefusalAggregator
}

export function errorMiddleware(d: ErrorMiddlewareDeps) {
  return async (ctx: Ctx, next: Koa.Next) => {
    ctx.state.ip = clientIp(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for'), d.trustedProxies)
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) throw errors.notFound()
      d.metrics?.request(routeLabel(ctx.path), ctx.status, 'ok')
    } catch (err) {
      const e = toServiceError(err)
      if (e.status >= 500) d.log.error('request failed', { path: ctx.path, code: e.code, err: e.cause ?? err })
      setAnswer(ctx, errorAnswer(e))
      d.metrics?.request(routeLabel(ctx.path), e.status, e.code)
      recordRefusal(d.refusals, ctx, e)
    }
    // Responses that were not counted (404s, preflights, health) still carry the caller's bucket.
    if (!ctx.state.rl) {
      const b = ipBucket(ctx.state.ip)
      ctx.state.rl = await d.limits.peekRequest(b, d.ipRequestsPerMinute, d.now())
    }
    if (d.draining?.()) ctx.set('Connection', 'close')
    const h = rateLimitHeaders(ctx.state.rl)
    // On the node response directly: ctx.set allocates arrays per call (bench/HISTORY.md); same effect.
    const res = ctx.res
    if (!res.headersSent) for (const k in h) if (!res.getHeader(k)) res.setHeader(k, h[k]!)
  }
}

const ROUTES = new Set(['/v1/event', '/v1/events', '/health/live', '/openapi.json'])
/** A bounded label: unknown paths are one series, not one per path a scanner tries. */
function routeLabel(path: string): string {
  return ROUTES.has(path) ? path : 'other'
}

/** H65: only a client refusal of a request whose key authenticated has an account to show it to. */
function recordRefusal(refusals: RefusalAggregator | undefined, ctx: Ctx, e: ServiceError): void {
  const auth = ctx.state.auth
  if (refusals === undefined || auth === undefined || e.status >= 500) return
  refusals.record({
    accountId: auth.account.account_id,
    environment: auth.key.type,
    code: e.code,
    endpoint: routeLabel(ctx.path),
    message: e.message,
    body: (ctx.request as { rawBody?: string }).rawBody,
  })
}

function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err
  const e = err as { status?: number }
  if (e?.status === 413) return errors.payloadTooLarge(0)
  return new ServiceError(INTERNAL_ERROR.code, INTERNAL_ERROR.status, INTERNAL_ERROR.message, undefined, { cause: err })
}
