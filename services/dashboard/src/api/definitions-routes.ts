// Reads for the Definitions page (decision U8 of docs/design.md), GET /api/definitions?environment=,
// and the Live page's history (U7), GET /api/live/history?limit=; read as the read-only user and
// counted as reads like every query.
import type Router from '@koa/router'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { envParam, intParam } from './params.js'

export function addDefinitionRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  r.get('/definitions', async (ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const environment = envParam(ctx)
    const [events, traits] = await h.ch('definitions', () =>
      Promise.all([
        d.definitions.events(a.account_id, environment, Date.now()),
        d.definitions.traits(a.account_id, environment),
      ]),
    )
    ctx.body = { success: true, data: { events, traits } }
  })

  r.get('/live/history', async (ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const limit = intParam(ctx, 'limit', 50, 1, 200)
    ctx.body = {
      success: true,
      data: await h.ch('live history', () => d.liveHistory.recent(a.account_id, limit, Date.now())),
    }
  })
}
