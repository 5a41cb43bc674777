// Health, metrics and the OpenAPI document. Liveness says only that the process answers (a
// restart would not help a Kafka outage); readiness says whether a request sent here now can be
// accepted, so a load balancer routes around an instance whose producer cannot deliver or whose
// key table has gone stale. Readiness and metrics show traffic, error mix and producer state, so
// they are served on the admin listener only (admin-app.ts, H36); the public port keeps liveness
// and the OpenAPI document.
import type Router from '@koa/router'
import { liveAnswer, setAnswer } from '../../../shared/src/http/index.js'
import { openApiDocument } from './openapi.js'
import type { State } from './context.js'

/** The public port's own routes: liveness (what a load balancer may check there) and the OpenAPI document. */
export function addPublicRoutes(router: Router<State>): void {
  router.get('/health/live', (ctx) => setAnswer(ctx, liveAnswer()))
  // Built on the first request and kept by this app's routes, not by the module (H77).
  let document: Record<string, unknown> | undefined
  router.get('/openapi.json', (ctx) => {
    document ??= openApiDocument()
    ctx.body = document
  })
}
