// Health, metrics and the OpenAPI document. Liveness says only that the process answers (a
// restart would not help a Kafka outage); readiness says whether a request sent here now can be
// accepted, so a load balancer routes around an instance whose producer cannot deliver or whose
// key table has gone stale. Readiness and metrics show traffic, error mix and producer state, so
// they are served on the admin listener only (admin-app.ts, H36); the public port keeps liveness
// and the OpenAPI document.
import type { ParameterizedContext } from 'koa'
import type Router from '@koa/router'
import { openApiDocument } from './openapi.js'
import type { State } from './context.js'
import type { IngestMetrics } from './metrics.js'
import type { Readiness } from './readiness.js'

/** The public port's own routes: liveness (what a load balancer may check there) and the OpenAPI document. */
export function addPublicRoutes(router: Router<State>): void {
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' }
  })
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument()
  })
}

/** The admin listener's routes: liveness, readiness (twice: /health is its older name) and metrics. */
export function addAdminRoutes(
  router: Router,
  d: { readiness: () => Readiness; metrics: IngestMetrics; afterReadiness?: () => Promise<void> },
): void {
  const ready = async (ctx: ParameterizedContext) => {
    const r = d.readiness()
    ctx.status = r.ready ? 200 : 503
    if (!r.ready) ctx.set('Retry-After', '2')
    ctx.body = { status: r.ready ? 'ok' : 'unavailable', checks: r.checks }
    await d.afterReadiness?.()
  }
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' }
  })
  router.get('/health/ready', ready)
  router.get('/health', ready)
  router.get('/metrics', async (ctx) => {
    ctx.type = d.metrics.contentType
    ctx.body = await d.metrics.render()
  })
}
