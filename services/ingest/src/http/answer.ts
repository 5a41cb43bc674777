// The routes' answer step (H11, H12): the last step of a request the pipeline took, in a file of its
// own so the walk of one event ends here and does not come back to the route (H79).
import { errors, ServiceError } from '../errors.js'
import { successJson } from '../pipeline/success-json.js'
import type { ItemOutcome } from '../pipeline/item-outcomes.js'
import type { Ctx } from './context.js'

// The answer as the JSON text Koa would send for the success body, with the content type Koa would
// set for it: the same bytes on the wire. A string body takes Koa's shortest path; an object goes
// through its stream/Blob/Response checks, a Content-Length removal and content-type parsing, then
// is stringified in respond(): measurably more per request (bench/koa-body.ts; figures in bench/HISTORY.md).
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
export function jsonAnswer(ctx: Ctx, json: string) {
  ctx.res.setHeader('Content-Type', JSON_CONTENT_TYPE)
  ctx.body = json
}

/** 200 when an item was accepted; else the monthly 429 when the quota refused them all (H5, H33), or 400 (H11). */
export function batchAnswer(results: ItemOutcome[], quotaError: ServiceError | undefined): string {
  if (results.some((r) => r.success)) return successJson(results)
  const allQuota = quotaError !== undefined && results.every((r) => r.error?.code === quotaError.code)
  if (allQuota && quotaError) {
    throw new ServiceError(
      quotaError.code,
      quotaError.status,
      quotaError.message,
      { ...quotaError.details, results },
      { headers: quotaError.headers },
    )
  }
  throw errors.validation({ results }, 'No item of the batch was accepted')
}
