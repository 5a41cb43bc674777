// The Trends page's read (U13), GET /api/trends: a trend and, with compare=1, the period before it;
// format=csv answers the current period as text/csv (U13 of docs/design.md). Read as the read-only
// user and counted as a read like every query (H23).
import type Router from '@koa/router'
import type { ApiHelpers, Ctx, DashboardState } from './api-context.js'
import { envParam, q, range } from './params.js'
import { trendSpecOf } from './trend-params.js'
import { trendCsv, type TrendQueries } from './trends-queries.js'

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v])

export function addTrendRoutes(r: Router<DashboardState>, trends: TrendQueries, h: ApiHelpers): void {
  r.get('/trends', async (ctx: Ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const { current, previous } = trendSpecOf(
      {
        period: q(ctx, 'period'),
        interval: q(ctx, 'interval'),
        event: q(ctx, 'event'),
        breakdown: q(ctx, 'breakdown'),
        breakdownTrait: q(ctx, 'breakdown_trait'),
        environment: envParam(ctx),
        filters: list(ctx.query.filter),
        custom: () => range(ctx, 7),
      },
      Date.now(),
    )
    const compare = q(ctx, 'compare') === '1'
    const [now, before] = await h.ch('trends', () =>
      Promise.all([
        trends.trend(a.account_id, current),
        compare ? trends.trend(a.account_id, previous) : Promise.resolve(undefined),
      ]),
    )
    if (q(ctx, 'format') === 'csv') {
      ctx.type = 'text/csv; charset=utf-8'
      ctx.set('Content-Disposition', 'attachment; filename="trend.csv"')
      ctx.body = trendCsv(now)
      return
    }
    ctx.body = { success: true, data: { ...now, ...(before ? { previous: before } : {}) } }
  })
}
