// The Funnels page's read (U15 of docs/design.md), GET /api/funnels: persons per step with conversion
// and drop-off. Read as the read-only user and counted as a read like every query (H23).
import type Router from '@koa/router'
import type { ApiHelpers, Ctx, DashboardState } from './api-context.js'
import { funnelSpecOf } from './funnel-params.js'
import type { FunnelQueries } from './funnels-queries.js'
import { envParam, q, range } from './params.js'

export function addFunnelRoutes(r: Router<DashboardState>, funnels: FunnelQueries, h: ApiHelpers): void {
  r.get('/funnels', async (ctx: Ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const spec = funnelSpecOf(
      {
        param: (name) => q(ctx, name),
        window: q(ctx, 'window'),
        period: q(ctx, 'period'),
        environment: envParam(ctx),
        custom: () => range(ctx, 7),
      },
      Date.now(),
    )
    const funnel = await h.ch('funnels', () => funnels.funnel(a.account_id, spec))
    ctx.body = {
      success: true,
      data: { ...funnel, window_ms: spec.windowMs, from: spec.from.toISOString(), to: spec.to.toISOString() },
    }
  })
}
