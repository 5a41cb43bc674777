// The account and its usage against the plan (U1): events and emails this month, or of an earlier
// month asked for by `month` (H5, H6, U2, U34), requests this minute, events per hour; and those last two
// alone (`/usage/activity`, U35).
import type Router from '@koa/router'
import { monthKeyOf } from '../../../shared/src/usage/month-key.js'
import type { AccountUsage } from '../../../shared/src/usage/usage-query.js'
import type { Plan } from '../../../shared/src/accounts/plans.js'
import type { ApiDeps, ApiHelpers, DashboardState } from './api-context.js'
import { intParam, monthParam } from './params.js'

const DAY = 86_400_000

export function addUsageRoutes(r: Router<DashboardState>, d: ApiDeps, h: ApiHelpers): void {
  const { planOf, me, account, ch, countRead } = h
  r.get('/me', async (ctx) => {
    ctx.body = { success: true, data: me(account(ctx)) }
  })

  r.get('/usage', async (ctx) => {
    const a = account(ctx)
    countRead(ctx)
    const plan = planOf(a)
    const days = intParam(ctx, 'days', 3, 1, 31)
    const now = Date.now()
    const thisMonth = monthKeyOf(now)
    const month = monthParam(ctx, 'month', thisMonth) ?? thisMonth
    const [usage, activity] = await ch('usage', () =>
      Promise.all([d.queries.monthUsage(a.account_id, month), readActivity(d, plan, a.account_id, days, now)]),
    )
    ctx.body = { success: true, data: { ...monthAnswer(plan, month, usage), ...activity } }
  })

  // The page's frequent refresh (U35): the minute's requests and the events per hour, without the month's
  // count, whose read costs far more and which the page asks for again less often.
  r.get('/usage/activity', async (ctx) => {
    const a = account(ctx)
    countRead(ctx)
    const days = intParam(ctx, 'days', 3, 1, 31)
    ctx.body = {
      success: true,
      data: await ch('usage', () => readActivity(d, planOf(a), a.account_id, days, Date.now())),
    }
  })
}

/** The plan, and the month's events and emails against it. */
function monthAnswer(plan: Plan, month: string, usage: AccountUsage) {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return {
    plan: {
      name: plan.name,
      requests_per_minute: plan.requestsPerMinute,
      events_per_second: plan.eventsPerSecond,
      events_per_month: plan.eventsPerMonth,
      test_events_per_month: plan.testEventsPerMonth,
      emails_per_month: plan.emailsPerMonth,
    },
    month,
    resets_at: new Date(Date.UTC(y, m, 1)).toISOString(),
    // H5/H6: live-key events count toward the limit; test events apart, against their own cap (H33).
    events_this_month: {
      live: usage.live,
      test: usage.test,
      limit: plan.eventsPerMonth,
      test_limit: plan.testEventsPerMonth,
    },
    // U2: no emails are sent yet; the counter stays at zero until they are.
    emails_this_month: { sent: usage.emails, limit: plan.emailsPerMonth },
  }
}

/** Requests this minute against the plan, and events per hour over the last `days` days. */
async function readActivity(d: ApiDeps, plan: Plan, accountId: string, days: number, now: number) {
  const to = new Date(now - (now % 3_600_000) + 3_600_000)
  const from = new Date(to.getTime() - days * DAY)
  const [minute, hourly] = await Promise.all([
    d.queries.requestsThisMinute(accountId, now),
    d.queries.eventsPerHour(accountId, from, to),
  ])
  return {
    requests_this_minute: {
      count: minute.count,
      limit: plan.requestsPerMinute,
      window_start: new Date(minute.windowStart).toISOString(),
      source: 'accepted requests projected to ClickHouse in the current minute window',
    },
    events_per_hour: hourly,
  }
}
