// The dashboard's JSON API under /api, wiring only. Every read and every change is scoped to the
// account of the session (ctx.state.account); ids in paths are checked to belong to it. Account and
// key changes go through AccountsAdmin, so they are records on the accounts topic (A1). One file
// per resource: session-routes.ts, key-routes.ts, usage-routes.ts, explore-routes.ts, definitions-routes.ts,
// persons-routes.ts, trends-routes.ts, funnels-routes.ts,
// retention-routes.ts.

// persons-routes.ts, trends-routes.ts, refused-routes.ts.
import Router from '@koa/router'
import { apiHelpers, type ApiDeps, type DashboardState } from './api-context.js'
import { addSessionRoutes } from './session-routes.js'
import { addKeyRoutes } from './key-routes.js'
import { addUsageRoutes } from './usage-routes.js'
import { addExploreRoutes } from './explore-routes.js'
import { addDefinitionRoutes } from './definitions-routes.js'
import { addPrivacyRoutes } from './privacy-routes.js'
import { addPersonRoutes } from './persons-routes.js'
import { addTrendRoutes } from './trends-routes.js'
import { addFunnelRoutes } from './funnels-routes.js'
import { addRetentionRoutes } from './retention-routes.js'

import { addRefusedRoutes } from './refused-routes.js'

export type { ApiDeps, DashboardState } from './api-context.js'
export { accountIdFor } from './session-routes.js'
export { keyView } from './key-routes.js'

export function createApiRouter(d: ApiDeps): Router<DashboardState> {
  const r = new Router<DashboardState>({ prefix: '/api' })
  const h = apiHelpers(d)
  addSessionRoutes(r, d, h)
  addKeyRoutes(r, d, h)
  addUsageRoutes(r, d, h)
  addExploreRoutes(r, d, h)
  addDefinitionRoutes(r, d, h)
  addPrivacyRoutes(r, d, h)
  addPersonRoutes(r, d, h)
  if (d.trends) addTrendRoutes(r, d.trends, h)
  if (d.funnels) addFunnelRoutes(r, d.funnels, h)
  if (d.retention) addRetentionRoutes(r, d.retention, h)

  if (d.refused) addRefusedRoutes(r, d.refused, h)
  return r
}
