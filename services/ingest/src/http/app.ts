// The ingest HTTP surface (docs/api.md Endpoints, H1-H16). Checks run in the order of H2:
// auth, per-minute limit, body (type, size, JSON), validation, then per-second and monthly
// limits; only then are records appended to Kafka, and 200 is sent once Kafka has them (A4).
import Koa from 'koa'
import Router from '@koa/router'
import bodyParser from 'koa-bodyparser'
import type { IngestConfig } from '../config.js'
import type { Logger } from '../../../shared/src/log.js'
import type { Codec } from '../../../../schemas/codec.js'
import { userKey, type EventRecord, type IdentifyRecord } from '../../../../schemas/records.js'
import { errors, ServiceError } from '../errors.js'
import { parseAuthorization, hashKey, type KeyTable, type KeyLookup } from '../auth/index.js'
import {
  RequestLimiter, EventRateLimiter, MonthlyQuota, accountBucket, ipBucket,
  rateLimitHeaders, rateLimitError, eventRateError, monthlyLimitError, type RateLimitResult,
} from '../limits/index.js'
import {
  validateSingle, validateBatch, toEventRecord, toIdentifyRecord,
  type FieldError, type RequestContext, type Item,
} from '../validation/index.js'
import type { OutRecord } from '../kafka/record-appender.js'
import { clientIp } from './client-ip.js'
import { openApiDocument } from './openapi.js'
import type { Readiness } from './readiness.js'
import type { IngestMetrics } from './metrics.js'

export interface Appender {
  append(records: OutRecord[]): Promise<void>
}

export interface IngestDeps {
  cfg: IngestConfig
  keys: KeyTable
  requestLimiter: RequestLimiter
  eventLimiter: EventRateLimiter
  quota: MonthlyQuota
  codec: Codec
  appender: Appender
  log: Logger
  now?: () => number
  /** Called with the key id of each authenticated request (last-used times). */
  onKeyUsed?: (keyId: string, now: number) => void
  /** Prometheus metrics, served on GET /metrics when given. */
  metrics?: IngestMetrics
  /** False until the service has its dependencies (and again while draining): /v1/* answers 503. */
  accepting?: () => boolean
  /** True once the service is shutting down: answers ask clients to reconnect elsewhere. */
  draining?: () => boolean
  /** Readiness: can this instance deliver to Kafka and is its key table current? */
  readiness?: () => Readiness
}


interface State {
  rl?: RateLimitResult
  ip: string
  auth?: KeyLookup
}

type Ctx = Koa.ParameterizedContext<State>

interface ItemOutcome {
  index: number
  success: boolean
  event_id?: string
  error?: { code: string; message: string; details?: Record<string, unknown> }
}

const API_PATHS = new Set(['/v1/event', '/v1/events'])
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

export function createIngestApp(d: IngestDeps): Koa<State> {
  const now = d.now ?? Date.now
  const app = new Koa<State>({ proxy: false })
  const router = new Router<State>()

  // ---- one place renders every error as shape 1 and guarantees the rate-limit headers (H2)
  app.use(async (ctx, next) => {
    ctx.state.ip = clientIp(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for'), d.cfg.trustedProxies)
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) throw errors.notFound()
      d.metrics?.request(routeLabel(ctx.path), ctx.status, 'ok')
    } catch (err) {
      const e = toServiceError(err)
      if (e.status >= 500) d.log.error('request failed', { path: ctx.path, code: e.code, err: e.cause ?? err })
      ctx.status = e.status
      ctx.body = e.toBody()
      ctx.set(e.headers)
      d.metrics?.request(routeLabel(ctx.path), e.status, e.code)
    }
    if (!ctx.state.rl) {
      // Responses that were not counted (404s, preflights, health) still carry the caller's bucket.
      const ipr = d.requestLimiter.peek(ipBucket(ctx.state.ip), d.cfg.ipRequestsPerMinute, now())
      ctx.state.rl = ipr
    }
    if (d.draining?.()) ctx.set('Connection', 'close')
    const h = rateLimitHeaders(ctx.state.rl)
    for (const [k, val] of Object.entries(h)) if (!ctx.response.get(k)) ctx.set(k, val)
  })

  // ---- CORS (H15): browsers send from any origin with a bearer key, never cookies.
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/v1/')) {
      ctx.set('Access-Control-Allow-Origin', d.cfg.corsOrigins)
      ctx.set('Access-Control-Expose-Headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Window, Retry-After')
      if (d.cfg.corsOrigins !== '*') ctx.set('Vary', 'Origin')
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS')
        ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Content-Encoding')
        ctx.set('Access-Control-Max-Age', '86400')
        ctx.status = 204
        return
      }
    }
    await next()
  })

  // ---- H2 step 1 and 2: authentication, then the account's per-minute window
  const authenticate = async (ctx: Ctx, next: Koa.Next) => {
    // Before the key table is loaded every key would look unknown: 503, never a wrong 401.
    if (d.accepting && !d.accepting()) throw errors.unavailable(2)
    const t = now()
    const parsed = parseAuthorization(ctx.get('authorization') || undefined, d.cfg.acceptedKeyTypes)
    const found = parsed.ok ? d.keys.lookup(hashKey(parsed.key)) : undefined
    if (!found) {
      // Unauthenticated requests are throttled per client IP and carry that bucket's headers (H2).
      const ipr = d.requestLimiter.check(ipBucket(ctx.state.ip), d.cfg.ipRequestsPerMinute, t)
      ctx.state.rl = ipr
      if (!ipr.allowed) throw rateLimitError(ipr)
      throw parsed.ok ? errors.invalidKey() : parsed.error
    }
    const rl = d.requestLimiter.check(accountBucket(found.account.account_id), found.plan.requestsPerMinute, t)
    ctx.state.rl = rl
    if (!rl.allowed) throw rateLimitError(rl)
    ctx.state.auth = found
    d.onKeyUsed?.(found.key.key_id, t)
    await next()
  }

  // ---- H2 step 3, H7: content type, size after decompression, JSON
  const body = (limit: number) => {
    const parse = bodyParser({
      enableTypes: ['json'],
      // Everything JSON_TYPE lets through must be parsed, or a `+json` body would read as empty.
      extendTypes: { json: ['application/*+json'] },
      jsonLimit: limit as unknown as string,
      strict: false,
      onerror: (err: any) => {
        if (err?.status === 413 || err?.type === 'entity.too.large') throw errors.payloadTooLarge(limit)
        if (err?.status === 415 || err?.type === 'encoding.unsupported') throw errors.unsupportedMediaType()
        throw errors.invalidJson(err?.message ? String(err.message).slice(0, 200) : undefined)
      },
    })
    return async (ctx: Ctx, next: Koa.Next) => {
      if (!JSON_TYPE.test(ctx.get('content-type'))) throw errors.unsupportedMediaType()
      const declared = Number(ctx.get('content-length'))
      const encoded = (ctx.get('content-encoding') || 'identity').trim().toLowerCase()
      if (encoded === 'identity' && declared > limit) throw errors.payloadTooLarge(limit)
      if (!['identity', 'gzip', 'deflate', 'br'].includes(encoded)) throw errors.unsupportedMediaType()
      // Content codings are case-insensitive (RFC 9110 8.4.1) but the inflater matches them
      // exactly: hand it the normalized name, so `Content-Encoding: GZIP` is not a 415.
      ctx.req.headers['content-encoding'] = encoded
      await parse(ctx as any, async () => undefined)
      if ((ctx.request as any).rawBody === '' || (ctx.request as any).rawBody === undefined) {
        throw errors.invalidJson('the body is empty')
      }
      await next()
    }
  }

  const requestContext = (ctx: Ctx, sentAt: number | null, receivedAt: number): RequestContext => ({
    accountId: ctx.state.auth!.account.account_id,
    environment: ctx.state.auth!.key.type,
    keyId: ctx.state.auth!.key.key_id,
    receivedAt,
    sentAt,
    ip: ctx.state.ip || null,
    userAgent: ctx.get('user-agent') || null,
  })

  router.post('/v1/event', authenticate, body(d.cfg.bodyLimits.single), async (ctx) => {
    // One receipt time for validation and the record: the stored time is checked as H13 makes it.
    const receivedAt = now()
    const v = validateSingle((ctx.request as any).body, receivedAt)
    if (!v.ok) throw validationError(v.errors)
    const rc = requestContext(ctx, null, receivedAt)
    const { results, quotaError } = await accept(ctx, [{ index: 0, item: v.item }], rc)
    if (!results[0].success) throw quotaError!
    ctx.body = successBody(results)
  })

  router.post('/v1/events', authenticate, body(d.cfg.bodyLimits.batch), async (ctx) => {
    const receivedAt = now()
    const v = validateBatch((ctx.request as any).body, receivedAt)
    if (!v.ok) throw errors.validation({ errors: v.errors }, 'Batch envelope is invalid: ' + v.errors.map((e) => `${e.path || '/'} ${e.message}`).join('; '))
    // sent_at as validation read it (no offset means UTC, H9); Date.parse would read such a time as local time.
    const rc = requestContext(ctx, v.sentAtMs, receivedAt)
    const results: ItemOutcome[] = new Array(v.items.length)
    const valid: Array<{ index: number; item: Item }> = []
    for (const it of v.items) {
      if (it.ok) valid.push({ index: it.index, item: it.item })
      else results[it.index] = {
        index: it.index,
        success: false,
        error: { code: 'VALIDATION_ERROR', message: it.errors.map((e) => `${e.path}: ${e.message}`).join('; '), details: { errors: it.errors } },
      }
    }
    let quotaError: ServiceError | undefined
    if (valid.length) {
      const a = await accept(ctx, valid, rc)
      quotaError = a.quotaError
      for (const r of a.results) results[r.index] = r
    }
    const accepted = results.filter((r) => r.success).length
    if (accepted === 0) {
      const allQuota = results.every((r) => r.error?.code === 'MONTHLY_EVENT_LIMIT_EXCEEDED')
      if (allQuota && quotaError) {
        throw new ServiceError(quotaError.code, quotaError.status, quotaError.message, { ...quotaError.details, results }, { headers: quotaError.headers })
      }
      throw errors.validation({ results }, 'No item of the batch was accepted')
    }
    ctx.body = successBody(results)
  })

  /** Limits of H4-H6, then one append to Kafka for every accepted item (A4). Items refused by
   * the monthly quota (H5) fail with `quotaError`, the 429 the request gets if nothing else passed. */
  async function accept(ctx: Ctx, items: Array<{ index: number; item: Item }>, rc: RequestContext): Promise<{ results: ItemOutcome[]; quotaError?: ServiceError }> {
    const { account, plan } = ctx.state.auth!
    const t = rc.receivedAt
    const er = d.eventLimiter.tryTake(account.account_id, items.length, plan.eventsPerSecond, t)
    if (!er.allowed) throw eventRateError(er, ctx.state.rl)

    // H5/H6: only live-key events count toward the month; identifies create no event.
    const countable = rc.environment === 'live' ? items.filter((x) => x.item.kind === 'event').length : 0
    let granted = countable
    let quotaError: ServiceError | undefined
    if (countable > 0) {
      const reservation = d.quota.reserve(account.account_id, countable, plan.eventsPerMonth, t)
      granted = reservation.granted
      if (granted < countable) quotaError = monthlyLimitError(reservation, ctx.state.rl)
    }

    const out: ItemOutcome[] = []
    const records: OutRecord[] = []
    let seenCountable = 0
    for (const { index, item } of items) {
      if (item.kind === 'event' && rc.environment === 'live' && seenCountable++ >= granted) {
        out.push({ index, success: false, error: { code: quotaError!.code, message: quotaError!.message, details: quotaError!.details } })
        continue
      }
      if (item.kind === 'event') {
        const r: EventRecord = toEventRecord(item, rc)
        records.push({ topic: d.cfg.topics.events, key: userKey(r.account_id, r.user_id), value: d.codec.encode('Event', r) })
        out.push({ index, success: true, event_id: r.event_id })
      } else {
        const r: IdentifyRecord = toIdentifyRecord(item, rc)
        records.push({ topic: d.cfg.topics.identifies, key: userKey(r.account_id, r.user_id), value: d.codec.encode('Identify', r) })
        out.push({ index, success: true, event_id: r.event_id })
      }
    }
    try {
      await d.appender.append(records)
    } catch (err) {
      if (countable > 0 && granted > 0) d.quota.release(account.account_id, granted, t)
      throw errors.unavailable(2, err)
    }
    d.metrics?.item('accepted', records.length)
    if (records.length < items.length) d.metrics?.item('MONTHLY_EVENT_LIMIT_EXCEEDED', items.length - records.length)
    return { results: out, quotaError }
  }

  // Liveness says only that the process answers (a restart would not help a Kafka outage);
  // readiness says whether a request sent here now can be accepted, so a load balancer routes
  // around an instance whose producer cannot deliver or whose key table has gone stale.
  const ready = (ctx: Ctx) => {
    const r = d.readiness?.() ?? { ready: true, checks: {} }
    ctx.status = r.ready ? 200 : 503
    if (!r.ready) ctx.set('Retry-After', '2')
    ctx.body = { status: r.ready ? 'ok' : 'unavailable', checks: r.checks }
  }
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' }
  })
  router.get('/health/ready', ready)
  router.get('/health', ready)
  router.get('/metrics', async (ctx) => {
    if (!d.metrics) throw errors.notFound()
    ctx.type = d.metrics.contentType
    ctx.body = await d.metrics.render()
  })
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument()
  })

  app.use(router.routes())
  app.use(async (ctx, next) => {
    // Known path, wrong method: 405 with Allow (router.allowedMethods would answer without our body).
    if (API_PATHS.has(ctx.path)) throw errors.methodNotAllowed(['POST', 'OPTIONS'])
    await next()
  })
  app.on('error', (err) => d.log.error('koa error', { err }))
  return app
}

const ROUTES = new Set(['/v1/event', '/v1/events', '/health', '/health/live', '/health/ready', '/metrics', '/openapi.json'])
/** A bounded label: unknown paths are one series, not one per path a scanner tries. */
function routeLabel(path: string): string {
  return ROUTES.has(path) ? path : 'other'
}

function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err
  const e = err as { status?: number; expose?: boolean; message?: string }
  if (e?.status === 413) return errors.payloadTooLarge(0)
  const internal = new ServiceError('INTERNAL_ERROR', 500, 'Internal server error', undefined, { cause: err })
  return internal
}

function validationError(list: FieldError[]): ServiceError {
  const first = list[0]
  const summary = list.length === 1 ? `${first.path || '/'}: ${first.message}` : `${list.length} problems, first ${first.path || '/'}: ${first.message}`
  return errors.validation({ errors: list }, `Validation failed: ${summary}`)
}

function successBody(results: ItemOutcome[]) {
  const processed = results.filter((r) => r.success).length
  return {
    success: true,
    data: { processed_count: processed, failed_count: results.length - processed, results },
    events_processed: processed,
  }
}
