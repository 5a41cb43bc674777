// The Retention page's read (U18 of docs/design.md), GET /api/retention-cohorts: weekly cohorts and
// their returns. Named apart from /api/retention, the account's data retention setting. Read as the
// read-only user and counted as a read like every query (H23).
import type Router from '@koa/router'
import type { ApiHelpers, Ctx, DashboardState } from './api-context.js'
import { envParam, q, range } from './params.js'
import { retentionSpecOf } from './retention-params.js'
import type { RetentionQueries } from './retention-queries.js'

export function addRetentionRoutes(r: Router<DashboardState>, retention: RetentionQueries, h: ApiHelpers): void {
  r.get('/retention-cohorts', async (ctx: Ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const now = Date.now()
    const spec = retentionSpecOf(
      {
        start: q(ctx, 'start'),
        return: q(ctx, 'return'),
        weeks: q(ctx, 'weeks'),
        period: q(ctx, 'period'),
        environment: envParam(ctx),
        custom: () => range(ctx, 56),
      },
      now,
    )
    const data = await h.ch('retention cohorts', () => retention.retention(a.account_id, spec, now))
    ctx.body = { success: true, data }
  })
}
