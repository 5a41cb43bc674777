// Health, metrics and the OpenAPI document. Liveness says only that the process answers (a
// restart would not help a Kafka outage); readiness says whether a request sent here now can be
// accepted, so a load balancer routes around an instance whose producer cannot deliver or whose
// key table has gone stale.
import type Router from '@koa/router'
import { errors } from '../errors.js'
import { openApiDocument } from './openapi.js'
import type { Ctx, State } from './context.js'
import type { IngestMetrics } from './metrics.js'
import type { Readiness } from './readiness.js'

export function addHealthRoutes(router: Router<State>, d: { readiness?: () => Readiness; metrics?: IngestMetrics }): void {
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
}
