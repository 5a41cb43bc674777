// The event and user explorer over ClickHouse and the live stream proxied from the projector (U1).
import type Router from '@koa/router'
import { notFound } from '../errors.js'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { envParam, intParam, q, range, str } from './params.js'
import { openLiveFeed, pipeSse } from './live-proxy.js'

export function addExploreRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { account, ch } = h
  r.get('/events', async (ctx) => {
    const a = account(ctx)
    const f = { event: q(ctx, 'event'), userId: q(ctx, 'user_id'), environment: envParam(ctx), ...range(ctx, 7), limit: intParam(ctx, 'limit', 100, 1, 1000) }
    ctx.body = { success: true, data: await ch('events', () => d.queries.recentEvents(a.account_id, f)) }
  })

  r.get('/top-events', async (ctx) => {
    const a = account(ctx)
    const f = { environment: envParam(ctx), ...range(ctx, 7), limit: intParam(ctx, 'limit', 10, 1, 100) }
    ctx.body = { success: true, data: await ch('top events', () => d.queries.topEvents(a.account_id, f)) }
  })

  r.get('/users/:userId', async (ctx) => {
    const a = account(ctx)
    const userId = str(ctx.params.userId, 'user id', { required: true })!
    const environment = envParam(ctx)
    const [profiles, events] = await ch('user', () =>
      Promise.all([
        d.queries.userProfiles(a.account_id, userId, environment),
        d.queries.recentEvents(a.account_id, { userId, environment, from: new Date(0), to: new Date(Date.now() + 60_000), limit: 50 }),
      ]),
    )
    if (profiles.length === 0 && events.length === 0) throw notFound('User')
    ctx.body = { success: true, data: { user_id: userId, profiles, recent_events: events } }
  })

  r.get('/live', async (ctx) => {
    const a = account(ctx)
    const abort = new AbortController()
    const upstream = await openLiveFeed({
      projectorUrl: d.cfg.projectorUrl,
      liveToken: d.cfg.liveToken,
      accountId: a.account_id,
      filters: { event: q(ctx, 'event'), userId: q(ctx, 'user_id'), environment: envParam(ctx) },
      signal: abort.signal,
    })
    ctx.respond = false
    pipeSse(upstream, ctx.res, abort, d.log)
  })
}
