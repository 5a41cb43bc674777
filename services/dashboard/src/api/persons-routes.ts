// The Persons page (decision U11 of docs/design.md), GET /api/persons?q=&environment=&after=&limit=:
// the account's users, searched and paged; read as the read-only user and counted as reads like
// every query (H23).
import type Router from '@koa/router'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { envParam, intParam, q } from './params.js'

export function addPersonRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  r.get('/persons', async (ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const f = {
      search: q(ctx, 'q')?.trim() || undefined,
      environment: envParam(ctx),
      after: q(ctx, 'after', 1024),
      limit: intParam(ctx, 'limit', 50, 1, 200),
    }
    ctx.body = { success: true, data: await h.ch('persons', () => d.persons.list(a.account_id, f)) }
  })
}
