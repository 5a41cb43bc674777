// The dashboard's HTTP surface on one origin, wiring only: the static front end, GET /health and
// the JSON API. Order: errors, security headers, session, CSRF check (state-changing requests),
// health, routes (middleware.ts, ../api/routes.ts).
import Koa from 'koa'
import bodyParser from 'koa-bodyparser'
import { notFoundAnswer, setAnswer } from '../../../shared/src/http/index.js'
import { createApiRouter, type ApiDeps, type DashboardState } from '../api/routes.js'
import { loadAssets, staticFiles } from './static-files.js'
import { csrfGuard, healthAndReadiness, renderErrors, securityHeaders, session, type HealthDeps } from './middleware.js'

export interface DashboardAppDeps extends ApiDeps, HealthDeps {
  publicDir: string
}

export function createDashboardApp(d: DashboardAppDeps): Koa<DashboardState> {
  const app = new Koa<DashboardState>()
  app.proxy = false
  const { cfg, log } = d
  app.use(renderErrors())
  app.on('error', (err, ctx) => log.error('dashboard request failed', { err, path: ctx?.path }))
  app.use(securityHeaders())
  app.use(session(cfg, d.admin))
  app.use(csrfGuard(cfg, log))
  app.use(healthAndReadiness(d))
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '16kb', strict: true }))
  const api = createApiRouter(d)
  app.use(api.routes())
  app.use(api.allowedMethods())
  app.use(staticFiles(loadAssets(d.publicDir)))
  app.use(async (ctx) => setAnswer(ctx, notFoundAnswer('No such page or endpoint')))
  return app
}
