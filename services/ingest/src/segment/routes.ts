// Segment's HTTP Tracking API beside our own (docs/api.md Segment-compatible API, H49-H53): the same
// checks in the same order (H2), the same limits and headers, the same pipeline and "200 means stored"
// (A4). Each message becomes our batch item (to-items.ts), validated as /v1/events items are, then
// accepted as a batch (http/event-routes.ts acceptCheckedItems).
//
// With the key in a header (Basic or Bearer) the key and the per-minute limit come before the body,
// as on /v1/events; a key sent only in the body's `writeKey` can be read only after the body (H53).
import type Koa from 'koa'
import { errors } from '../errors.js'
import { validateBatch, type BatchItemResult, type FieldError } from '../validation/index.js'
import { acceptCheckedItems } from '../http/event-routes.js'
import type { PipelineDeps } from '../pipeline/accept-items.js'
import { authenticate, type AuthenticateDeps } from '../http/authenticate.js'
import { jsonBody } from '../http/json-body.js'
import type { BodyBytesInFlight } from '../limits/index.js'
import type { IngestConfig } from '../config.js'
import type { Ctx, State } from '../http/context.js'
import { bodyAuthorization, headerAuthorization } from './write-key.js'
import { segmentPath, toItem, type SegmentType } from './to-items.js'

/** H53: Segment's own limits for these endpoints, in bytes after decompression. */
export const SEGMENT_CALL_BODY_LIMIT = 32 * 1024
export const SEGMENT_BATCH_BODY_LIMIT = 500 * 1024

/** What the ingest app has (http/app.ts IngestDeps): the same clients, limits and pipeline as our own routes. */
export type SegmentRoutesDeps = Omit<AuthenticateDeps, 'acceptedKeyTypes' | 'ipRequestsPerMinute' | 'authorization'> & {
  cfg: IngestConfig
  inFlight: BodyBytesInFlight
  /** The same pipeline as our own endpoints' (http/app.ts), suppression (H55) included. */
  pipeline: PipelineDeps
}

// As the libraries call them: one optional trailing slash, any case (as our own paths). `import` is
// the batch endpoint some libraries use.
const PATH = /^\/v1\/(track|identify|page|screen|group|alias|batch|import|[tipsgab])\/?$/i
// The one-letter paths of analytics-next (t, i, p, s, g, a) and of analytics-kotlin and analytics-swift (b).
const SHORT: Record<string, string> = {
  t: 'track',
  i: 'identify',
  p: 'page',
  s: 'screen',
  g: 'group',
  a: 'alias',
  b: 'batch',
}

/** POST /v1/{track,identify,page,screen,group,alias,batch,import} and the short forms; anything else goes on to `next`. */
export function segmentRoutes(d: SegmentRoutesDeps): Koa.Middleware<State> {
  const { cfg } = d
  const { pipeline } = d
  const auth = (authorization: AuthenticateDeps['authorization']) =>
    authenticate({
      keys: d.keys,
      requestLimiter: d.requestLimiter,
      shared: d.shared,
      acceptedKeyTypes: cfg.acceptedKeyTypes,
      ipRequestsPerMinute: cfg.ipRequestsPerMinute,
      now: d.now,
      accepting: d.accepting,
      authorization,
    })
  const fromHeader = auth((ctx) => headerAuthorization(ctx.get('authorization') || undefined))
  const fromBody = auth((ctx) => bodyAuthorization((ctx.request as { body?: unknown }).body))
  // Both bodies are read with the single event's structure bound (H25, H53): the size limit bounds a batch.
  // text/plain too: the mobile and browser libraries send it (a browser then needs no CORS preflight).
  const read = (limit: number) =>
    jsonBody({
      kind: 'single',
      limit,
      maxInflateRatio: cfg.body.maxInflateRatio,
      readTimeoutMs: cfg.body.readTimeoutMs,
      inFlight: d.inFlight,
      textPlain: true,
    })
  const readCall = read(SEGMENT_CALL_BODY_LIMIT)
  const readBatch = read(SEGMENT_BATCH_BODY_LIMIT)
  return (ctx, next) => {
    const m = ctx.method === 'POST' ? PATH.exec(ctx.path) : null
    if (m === null) return next()
    const given = m[1]!.toLowerCase()
    const name = SHORT[given] ?? given
    const type = name === 'batch' || name === 'import' ? undefined : (name as SegmentType)
    const readBody = type === undefined ? readBatch : readCall
    const handle = () => accept(ctx, pipeline, d.now, type)
    if (ctx.get('authorization')) return fromHeader(ctx, () => readBody(ctx, handle))
    return readBody(ctx, () => fromBody(ctx, handle))
  }
}

async function accept(
  ctx: Ctx,
  pipeline: PipelineDeps,
  now: () => number,
  type: SegmentType | undefined,
): Promise<void> {
  const receivedAt = now()
  const body = (ctx.request as { body?: unknown }).body
  const single = type !== undefined
  const checked = checkMessages(body, type, receivedAt)
  if (!checked.ok)
    throw errors.validation(
      { errors: checked.errors },
      'Request is invalid: ' + checked.errors.map((e) => `${e.path || '/'} ${e.message}`).join('; '),
    )
  if (single && !checked.items[0]!.ok) {
    const list = checked.items[0]!.errors
    throw errors.validation({ errors: list }, `Validation failed: ${list[0]!.path || '/'}: ${list[0]!.message}`)
  }
  await acceptCheckedItems(ctx, pipeline, checked.items, checked.sentAtMs, receivedAt)
}

type Checked = { ok: false; errors: FieldError[] } | { ok: true; items: BatchItemResult[]; sentAtMs: number }

/**
 * The messages of a call (one) or a batch, each mapped (to-items.ts) and validated as a /v1/events
 * item, with its anonymous id (H52); errors name the Segment body's paths.
 */
export function checkMessages(input: unknown, type: SegmentType | undefined, receivedAt: number): Checked {
  const single = type !== undefined
  const isObj = input !== null && typeof input === 'object' && !Array.isArray(input)
  const body = input as { batch?: unknown; context?: unknown; sentAt?: unknown }
  if (!isObj) return { ok: false, errors: [{ path: '', message: 'request body must be a JSON object' }] }
  if (!single && !Array.isArray(body.batch))
    return { ok: false, errors: [{ path: '/batch', message: 'batch must be an array of messages' }] }
  const messages: unknown[] = single ? [body] : (body.batch as unknown[])
  const batchContext =
    !single && body.context !== null && typeof body.context === 'object' && !Array.isArray(body.context)
      ? (body.context as Record<string, unknown>)
      : undefined
  const mapped = messages.map((msg, i) => toItem(msg, type, single ? '' : `/batch/${i}`, batchContext))
  const okIndexes: number[] = []
  const events: unknown[] = []
  mapped.forEach((m, i) => {
    if (m.ok) {
      okIndexes.push(i)
      events.push(m.item)
    }
  })
  // Without a sentAt there is no clock skew to correct (H13): the time of receipt stands for it.
  const sentAt = body.sentAt ?? new Date(receivedAt).toISOString()
  const items: BatchItemResult[] = mapped.map((m, i) =>
    m.ok ? (undefined as unknown as BatchItemResult) : { index: i, ok: false, errors: m.errors },
  )
  if (messages.length === 0)
    return { ok: false, errors: [{ path: '/batch', message: 'batch must contain at least 1 message' }] }
  if (events.length === 0) return { ok: true, items, sentAtMs: receivedAt }
  const v = validateBatch({ sent_at: sentAt, events }, receivedAt)
  if (!v.ok)
    return {
      ok: false,
      errors: v.errors.map((e) => ({
        path: e.path === '/sent_at' ? '/sentAt' : segmentPath(e.path, single),
        message: e.message,
      })),
    }
  v.items.forEach((r, k) => {
    const index = okIndexes[k]!
    const m = mapped[index] as Extract<(typeof mapped)[number], { ok: true }>
    if (r.ok) {
      if (m.anonymousId !== undefined) r.item.anonymous_id = m.anonymousId
      items[index] = { index, ok: true, item: r.item }
    } else {
      items[index] = {
        index,
        ok: false,
        errors: r.errors.map((e) => ({
          path: segmentPath(e.path.replace(/^\/events\/\d+/, `/events/${index}`), single),
          message: e.message,
        })),
      }
    }
  })
  return { ok: true, items, sentAtMs: v.sentAtMs }
}
