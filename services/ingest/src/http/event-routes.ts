// The two ingest endpoints (docs/api.md Endpoints), their steps in H2's order: the key and the
// per-minute limit (authenticate.ts), the body (json-body.ts), validation (H8-H11, validation/),
// then the pipeline (pipeline/accept-items.ts: limits, records, the Kafka append), then the answer,
// assembled here: 200 with one result per item, or the error a request with no accepted item gets
// (H5, H11).
//
// They are the hot path, so they are one Koa middleware that matches the two paths itself rather
// than routes of @koa/router, whose matching, params and layer stack cost per request what a
// comparison does here (bench/HISTORY.md). Matching is the router's: case-insensitive, one optional
// trailing slash.
import { errors, type ServiceError } from '../errors.js'
import type { IngestConfig } from '../config.js'
import type { BodyBytesInFlight } from '../limits/index.js'
import { appAuthenticate, type AppAuthDeps } from './authenticate.js'
import { jsonBody } from './json-body.js'
import { validateSingle, validateBatch, type BatchItemResult, type FieldError, type Item } from '../validation/index.js'
import type { RequestContext } from '../records/index.js'
import { keptIp } from '../records/ip-handling.js'
import { acceptItems, pipelineOf, type ItemOutcome, type PipelineDeps } from '../pipeline/accept-items.js'
import { successJson } from '../pipeline/success-json.js'
import { batchAnswer, jsonAnswer } from './answer.js'
import type { Ctx, State } from './context.js'
import type { BodyKind } from './json-values.js'
import type Koa from 'koa'

/** What the ingest app has (app.ts IngestDeps): the clients and limits the steps use. */
export type EventRoutesDeps = AppAuthDeps &
  Omit<PipelineDeps, 'topics'> & { cfg: IngestConfig; inFlight: BodyBytesInFlight }

/** The steps of a route, in H2's order, made once. */
interface Steps {
  pipeline: PipelineDeps
  now: () => number
  authenticate: (ctx: Ctx, next: Koa.Next) => Promise<void>
  readBody: (kind: BodyKind) => Koa.Middleware<State>
}

const SINGLE_PATH = /^\/v1\/event\/?$/i
const BATCH_PATH = /^\/v1\/events\/?$/i

/** POST /v1/event and POST /v1/events; anything else goes on to `next`. */
export function eventRoutes(deps: EventRoutesDeps): Koa.Middleware<State> {
  const d = stepsOf(deps)
  const readSingle = d.readBody('single')
  const readBatch = d.readBody('batch')
  // authenticate, then the body, then the handler (H2's order), as a router's middleware list would.
  const single = (ctx: Ctx) => d.authenticate(ctx, () => readSingle(ctx, () => acceptSingle(ctx, d)))
  const batch = (ctx: Ctx) => d.authenticate(ctx, () => readBatch(ctx, () => acceptBatch(ctx, d)))
  return (ctx, next) => {
    if (ctx.method === 'POST') {
      const path = ctx.path
      if (SINGLE_PATH.test(path)) return single(ctx)
      if (BATCH_PATH.test(path)) return batch(ctx)
    }
    return next()
  }
}

function stepsOf(d: EventRoutesDeps): Steps {
  const { cfg } = d
  return {
    pipeline: pipelineOf(d),
    now: d.now,
    authenticate: appAuthenticate(d),
    readBody: (kind) =>
      jsonBody({
        kind,
        limit: cfg.bodyLimits[kind],
        maxInflateRatio: cfg.body.maxInflateRatio,
        readTimeoutMs: cfg.body.readTimeoutMs,
        inFlight: d.inFlight,
      }),
  }
}

async function acceptSingle(ctx: Ctx, d: Steps): Promise<void> {
  // One receipt time for validation and the record: the stored time is checked as H13 makes it.
  const receivedAt = d.now()
  const v = validateSingle((ctx.request as any).body, receivedAt)
  if (!v.ok) throw validationError(v.errors)
  const rc = requestContext(ctx, null, receivedAt)
  const { results, quotaError } = await acceptItems(
    d.pipeline,
    ctx.state.auth!,
    [{ index: 0, item: v.item }],
    rc,
    ctx.state.rl,
  )
  if (!results[0]!.success) throw quotaError ?? errors.userSuppressed()
  jsonAnswer(ctx, successJson(results))
}

async function acceptBatch(ctx: Ctx, d: Steps): Promise<void> {
  const receivedAt = d.now()
  const v = validateBatch((ctx.request as any).body, receivedAt)
  if (!v.ok)
    throw errors.validation(
      { errors: v.errors },
      'Batch envelope is invalid: ' + v.errors.map((e) => `${e.path || '/'} ${e.message}`).join('; '),
    )
  // sent_at as validation read it (no offset means UTC, H9); Date.parse would read such a time as local time.
  await acceptCheckedItems(ctx, d.pipeline, v.items, v.sentAtMs, receivedAt)
}

/** A batch's checked items through the pipeline, and the answer (H11): shared by /v1/events and the Segment routes (segment/routes.ts). */
export async function acceptCheckedItems(
  ctx: Ctx,
  pipeline: PipelineDeps,
  items: BatchItemResult[],
  sentAtMs: number | null,
  receivedAt: number,
): Promise<void> {
  const rc = requestContext(ctx, sentAtMs, receivedAt)
  const results: ItemOutcome[] = new Array(items.length)
  const valid: Array<{ index: number; item: Item }> = []
  for (const it of items) {
    if (it.ok) valid.push({ index: it.index, item: it.item })
    else
      results[it.index] = {
        index: it.index,
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: it.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
          details: { errors: it.errors },
        },
      }
  }
  let quotaError: ServiceError | undefined
  if (valid.length) {
    const a = await acceptItems(pipeline, ctx.state.auth!, valid, rc, ctx.state.rl)
    quotaError = a.quotaError
    for (const r of a.results) results[r.index] = r
  }
  jsonAnswer(ctx, batchAnswer(results, quotaError))
}

function requestContext(ctx: Ctx, sentAt: number | null, receivedAt: number): RequestContext {
  return {
    accountId: ctx.state.auth!.account.account_id,
    environment: ctx.state.auth!.key.type,
    keyId: ctx.state.auth!.key.key_id,
    receivedAt,
    sentAt,
    ip: keptIp(ctx.state.ip || null, ctx.state.auth!.account.ip_handling),
    userAgent: ctx.get('user-agent') || null,
    serverFields: undefined,
  }
}

function validationError(list: FieldError[]): ServiceError {
  const first = list[0]!
  const summary =
    list.length === 1
      ? `${first.path || '/'}: ${first.message}`
      : `${list.length} problems, first ${first.path || '/'}: ${first.message}`
  return errors.validation({ errors: list }, `Validation failed: ${summary}`)
}
