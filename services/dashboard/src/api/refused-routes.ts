// The Refused requests page's read (U16, H57), GET /api/refused?period=24h|7d&interval=hour|minute
// &environment=&samples=: the session's account's refused requests by error code over the period, and
// its latest samples. Read as the read-only user and counted as a read like every query (H23).
import type Router from '@koa/router'
import { validation } from '../errors.js'
import type { ApiHelpers, Ctx, DashboardState } from './api-context.js'
import { envParam, intParam, q } from './params.js'
import { REFUSED_PERIODS, type RefusedPeriod, type RefusedQueries, type RefusedSpec } from './refused-queries.js'

/** The query parameters as a spec (pure but for the clock it is given). Minute buckets only over 24 h:
 * a week of minutes is more points than a chart can show. */
export function refusedSpecOf(
  p: { period?: string; interval?: string; environment?: RefusedSpec['environment']; samples: number },
  now: number,
): RefusedSpec {
  const period = (p.period ?? '24h') as RefusedPeriod
  if (!(period in REFUSED_PERIODS)) throw validation('period must be 24h or 7d', { field: 'period' })
  const interval = p.interval ?? 'hour'
  if (interval !== 'hour' && interval !== 'minute')
    throw validation('interval must be hour or minute', { field: 'interval' })
  if (interval === 'minute' && period !== '24h')
    throw validation('minute buckets are for the 24h period only', { field: 'interval' })
  const to = new Date(Math.floor(now / 60_000) * 60_000 + 60_000)
  return {
    from: new Date(to.getTime() - REFUSED_PERIODS[period]),
    to,
    interval,
    environment: p.environment,
    samples: p.samples,
  }
}

export function addRefusedRoutes(r: Router<DashboardState>, refused: RefusedQueries, h: ApiHelpers): void {
  r.get('/refused', async (ctx: Ctx) => {
    const a = h.account(ctx)
    h.countRead(ctx)
    const spec = refusedSpecOf(
      {
        period: q(ctx, 'period'),
        interval: q(ctx, 'interval'),
        environment: envParam(ctx),
        samples: intParam(ctx, 'samples', 20, 1, 50),
      },
      Date.now(),
    )
    ctx.body = { success: true, data: await h.ch('refused', () => refused.refused(a.account_id, spec)) }
  })
}
