// The event and user explorer over ClickHouse and the live stream proxied from the projector (U1).
import type Router from '@koa/router'
import { notFound, tooManyStreams } from '../errors.js'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { envParam, intParam, q, range, str } from './params.js'
import { openLiveFeed, pipeSse } from './live-proxy.js'

/** Seconds a browser is told to wait when its session holds its streams already. */
const LIVE_RETRY_AFTER_S = 5

export function addExploreRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { account, ch, countRead } = h
  r.get('/events', async (ctx) => {
    const a = account(ctx)
    countRead(ctx)
    const f = {
      event: q(ctx, 'event'),
      userId: q(ctx, 'user_id'),
      eventContains: q(ctx, 'event_contains'),
      userContains: q(ctx, 'user_contains'),
      environment: envParam(ctx),
      ...range(ctx, 7),
      limit: intParam(ctx, 'limit', 100, 1, 1000),
    }
    ctx.body = { success: true, data: await ch('events', () => d.queries.recentEvents(a.account_id, f)) }
  })

  r.get('/top-events', async (ctx) => {
    const a = account(ctx)
    countRead(ctx)
    const f = { environment: envParam(ctx), ...range(ctx, 7), limit: intParam(ctx, 'limit', 10, 1, 100) }
    ctx.body = { success: true, data: await ch('top events', () => d.queries.topEvents(a.account_id, f)) }
  })

  r.get('/users/:userId', async (ctx) => {
    const a = account(ctx)
    countRead(ctx)
    const userId = str(ctx.params.userId, 'user id', { required: true })!
    const environment = envParam(ctx)
    // The person's history across the anonymous-to-known switch (H50): their own events and those
    // stored under the anonymous ids that now map to them.
    const anonymousIds = await ch('user', () => d.queries.anonymousIds(a.account_id, userId, environment))
    const [profiles, events, identifies] = await ch('user', () =>
      Promise.all([
        d.queries.userProfiles(a.account_id, userId, environment),
        d.queries.recentEvents(a.account_id, {
          userIds: [userId, ...anonymousIds],
          environment,
          from: new Date(0),
          to: new Date(Date.now() + 60_000),
          limit: 50,
        }),
        d.persons.identifies(a.account_id, [userId, ...anonymousIds], environment, 50),
      ]),
    )
    if (profiles.length === 0 && events.length === 0) throw notFound('User')
    ctx.body = {
      success: true,
      data: {
        user_id: userId,
        anonymous_ids: anonymousIds,
        profiles,
        recent_events: events,
        recent_identifies: identifies,
      },
    }
  })
  addLiveRoute(r, d, h)
}

/** The live stream (U3, U4): a few per session, each ended when its session ends. */
function addLiveRoute(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { account } = h
  r.get('/live', async (ctx) => {
    const a = account(ctx)
    const session = ctx.state.session!
    const abort = new AbortController()
    let end = () => abort.abort()
    const release = d.liveStreams.add({ session, end: () => end() })
    if (!release) throw tooManyStreams(LIVE_RETRY_AFTER_S, 'this session')
    let upstream: Response
    try {
      upstream = await openLiveFeed({
        projectorUrl: d.cfg.projectorUrl,
        liveToken: d.cfg.liveToken,
        accountId: a.account_id,
        filters: { event: q(ctx, 'event'), userId: q(ctx, 'user_id'), environment: envParam(ctx) },
        signal: abort.signal,
      })
    } catch (err) {
      release()
      throw err
    }
    ctx.respond = false
    end = pipeSse(upstream, ctx.res, {
      abort,
      log: d.log,
      signedIn: () => d.liveStreams.signedIn(session),
      onEnd: release,
    })
  })
}
