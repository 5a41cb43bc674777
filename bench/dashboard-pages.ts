// `npm run bench -- --only dashboard` (BENCHMARKS.md, "Dashboard pages"): every dashboard page's API
// call timed over HTTP on one account holding ten million events (the target: each under 1 s
// on this machine). The projector applies the migrations to the bench's database, the dashboard runs
// compiled from dist/ as production runs it, the bench signs up through it and fills that account
// straight into ClickHouse (dashboard-fill.ts; not measured), then calls each page's endpoint as the
// signed-in browser does: a cold first call, then `runs` more (median and max).
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { ClickHouseClient } from '@clickhouse/client'
import { sql } from '../schemas/clickhouse/sql.js'
import { openClickHouse } from '../services/shared/src/clickhouse.js'
import { readEnv, commonSpec, commonConfig } from '../services/shared/src/env.js'
import { DashboardClient } from '../test/support/dashboard-client.js'
import { fillAccount, type FillSizes } from './dashboard-fill.js'
import { monthKeyOf } from '../services/shared/src/usage/month-key.js'
import { compiled, freePort, startNode, stopChild, waitHealthy } from './processes.js'
import { waitUntil } from '../test/support/harness.js'

export interface PageCall {
  /** The page and what it asks, as the table shows it. */
  page: string
  /** The API call the page makes (under /api), with the query its view sends. */
  path: string
}

/** One line per page's API call; a page merged later is one more line here. */
export const PAGE_CALLS: PageCall[] = [
  { page: 'Definitions (events and traits)', path: '/definitions' },
  { page: 'Explorer: recent events, 7 days', path: '/events?limit=100' },
  { page: 'Explorer: event name contains', path: '/events?event_contains=checkout&limit=100' },
  { page: 'Explorer: one user', path: '/events?user_id=user_7&limit=100' },
  { page: 'Top events, 7 days', path: '/top-events' },
  { page: 'Usage (month, minute, 3 days by hour)', path: '/usage' },
  { page: 'Live history, last 50', path: '/live/history?limit=50' },
  { page: 'Persons: first page', path: '/persons' },
  { page: 'Persons: a later page', path: '/persons?after=user_5' },
  { page: 'Persons: search by email', path: '/persons?q=person2999%40' },
  { page: 'Persons: search by trait value', path: '/persons?q=business' },
  { page: 'User page', path: '/users/user_7' },
  { page: 'Trends: all events, 30 days by day', path: '/trends?period=30d&interval=day' },
  { page: 'Trends: one event, 7 days, compare', path: '/trends?period=7d&interval=hour&event=page_viewed&compare=1' },
  { page: 'Trends: breakdown by plan, 30 days', path: '/trends?period=30d&interval=day&breakdown=plan' },
  { page: 'Trends: filter paid=true, 7 days', path: '/trends?period=7d&interval=day&filter=paid%3Dtrue' },
  { page: 'Trends: breakdown by path (200 values), 30 days', path: '/trends?period=30d&interval=day&breakdown=path' },
  {
    page: 'Trends: breakdown by the trait plan, 30 days',
    path: '/trends?period=30d&interval=day&breakdown_trait=plan',
  },
  {
    page: 'Trends: one event by the trait plan, 7 days by hour',
    path: '/trends?period=7d&interval=hour&event=page_viewed&breakdown_trait=plan',
  },
  {
    page: 'Funnels: 3 steps, 30 days, window 7 days',
    path: '/funnels?step1=page_viewed&step2=signup_started&step3=checkout_completed&window=7d&period=30d',
  },
  {
    page: 'Funnels: 2 steps with a filter, 7 days, window 1 day',
    path: '/funnels?step1=page_viewed&where1=plan%3Dteam&step2=cart_started&window=1d&period=7d',
  },
  { page: 'Retention: any event, 8 weeks', path: '/retention-cohorts' },
  {
    page: 'Retention: signup_started to checkout_completed, 4 weeks',
    path: '/retention-cohorts?start=signup_started&return=checkout_completed&period=4w',
  },
  { page: 'Refused: 24 hours by hour', path: '/refused' },
  { page: 'Refused: 7 days by hour, 50 samples', path: '/refused?period=7d&samples=50' },
]

/**
 * The Usage page's month read at its largest: of the two months the fill's 30 days (received evenly up to
 * `nowMs`) fall in, the one holding more of them, asked for by `month` (U34). `/usage` alone reads the
 * current month, which early in a month holds a few days of the fill.
 */
export function fullestMonthCall(nowMs: number): PageCall {
  const now = new Date(nowMs)
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)
  const days = Math.min(30, (nowMs - start) / 86_400_000)
  const month = monthKeyOf(days >= 15 ? start : start - 1)
  const held = Math.round(days >= 15 ? days : 30 - days)
  return { page: `Usage: the month holding most of the fill (${held} of its 30 days)`, path: `/usage?month=${month}` }
}

export interface PageTiming extends PageCall {
  status: number
  bytes: number
  coldMs: number
  medianMs: number
  maxMs: number
}

export interface DashboardFigures {
  sizes: FillSizes
  fillSec: number
  /** Seconds waited after the fill for ClickHouse's merges of it to end. */
  mergedSec: number
  runs: number
  loadAverage: { start: number[]; end: number[] }
  /** Per checkout timed (its root), its pages' timings. */
  builds: Array<{ root: string; pages: PageTiming[] }>
}

/**
 * Seconds until the fill's parts are merged: no merge running in `database` and the count of active
 * parts unchanged for 10 s (at most `timeoutMs`, then it goes on).
 */
export async function mergesSettled(ch: ClickHouseClient, database: string, timeoutMs = 300_000): Promise<number> {
  const t0 = performance.now()
  let last = ''
  let sameSince = performance.now()
  while (performance.now() - t0 < timeoutMs) {
    const [r] = await (
      await ch.query({
        query: sql`SELECT (SELECT count() FROM system.merges WHERE database = ${database}) AS merges,
  (SELECT count() FROM system.parts WHERE database = ${database} AND active) AS parts`,
        format: 'JSONEachRow',
      })
    ).json<{ merges: string; parts: string }>()
    const now = `${r?.merges}/${r?.parts}`
    if (now !== last) [last, sameSince] = [now, performance.now()]
    else if (Number(r?.merges) === 0 && performance.now() - sameSince >= 10_000) break
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  return Math.round((performance.now() - t0) / 1000)
}

const ms = (t0: number) => Math.round(performance.now() - t0)

/** One call's time and answer, the whole body read (as the browser waits for it). */
async function timed(client: DashboardClient, path: string): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now()
  const r = await client.get(`/api${path}`)
  return { ms: ms(t0), status: r.status, bytes: JSON.stringify(r.body).length }
}

/** Median and max of `xs` (sorted in place). */
function spread(xs: number[]): { medianMs: number; maxMs: number } {
  xs.sort((a, b) => a - b)
  return { medianMs: xs[Math.floor(xs.length / 2)]!, maxMs: xs.at(-1)! }
}

/**
 * Times each call on every client (one a dashboard build, BENCHMARKS.md "Dashboard pages"): the first
 * (cold) call apart, then `runs` more in turn over the list, the clients alternating their order from
 * call to call so that a slow minute of the machine falls on both. One list of timings per client.
 */
export async function timePages(clients: DashboardClient[], calls: PageCall[], runs: number): Promise<PageTiming[][]> {
  const order = (i: number) => (i % 2 ? [...clients.keys()].reverse() : [...clients.keys()])
  const first = clients.map(() => [] as Array<Awaited<ReturnType<typeof timed>>>)
  for (const [k, c] of calls.entries()) for (const j of order(k)) first[j]![k] = await timed(clients[j]!, c.path)
  const warm = clients.map(() => calls.map(() => [] as number[]))
  for (let i = 0; i < runs; i++)
    for (const [k, c] of calls.entries())
      for (const j of order(i + k)) warm[j]![k]!.push((await timed(clients[j]!, c.path)).ms)
  return clients.map((_, j) =>
    calls.map((c, k) => {
      const f = first[j]![k]!
      return { ...c, status: f.status, bytes: f.bytes, coldMs: f.ms, ...spread(warm[j]![k]!) }
    }),
  )
}

const bold = (ms: number) => (ms < 1000 ? `${ms}` : `**${ms}**`)

/**
 * The table for BENCHMARKS.md (markdown): per build its cold call, median and max, a median over the
 * 1 s target in bold.
 */
export function pagesTable(builds: Array<{ label: string; pages: PageTiming[] }>): string[] {
  const head = builds.map((b) => `${b.label}: cold, median, max (ms)`)
  return [
    `| page | API call | ${head.join(' | ')} | answer |`,
    `| --- | --- | ${builds.map(() => '---').join(' | ')} | --- |`,
    ...builds[0]!.pages.map((p, k) => {
      const cells = builds.map((b) => {
        const q = b.pages[k]!
        return `${q.coldMs}, ${bold(q.medianMs)}, ${q.maxMs}`
      })
      return `| ${p.page} | \`${p.path}\` | ${cells.join(' | ')} | ${p.status}, ${(p.bytes / 1024).toFixed(1)} KiB |`
    }),
  ]
}

/** A dashboard of the checkout at `root` (its dist/), on `port`, beside the others on the same data. */
async function startDashboard(root: string, i: number, port: number, env: Record<string, string>, logDir: string) {
  const child = startNode(
    `dashboard-${i}`,
    join(root, compiled('services/dashboard/src/main.ts')),
    { ...env, DASHBOARD_PORT: String(port) },
    logDir,
  )
  await waitHealthy(child, `http://127.0.0.1:${port}/health`)
  return child
}

/**
 * Fills one account and times every page call on the dashboard of each of `roots` (checkouts with a
 * built dist/; this one alone by default), all reading the same database, their calls alternating.
 */
export async function dashboardBench(
  env: Record<string, string>,
  o: { sizes: FillSizes; runs: number; roots: string[]; logDir: string; say: (s: string) => void },
): Promise<DashboardFigures> {
  const cfg = commonConfig(readEnv(commonSpec, env))
  const projPort = await freePort()
  // The projector first: it applies the ClickHouse migrations and sets up the topics.
  const projector = startNode(
    'projector',
    compiled('services/projector/src/main.ts'),
    { ...env, PROJECTOR_PORT: String(projPort) },
    o.logDir,
  )
  await waitHealthy(projector, `http://127.0.0.1:${projPort}/health`)
  const dashEnv = {
    ...env,
    PROJECTOR_URL: `http://127.0.0.1:${projPort}`,
    // One secret for every build, so the one session signed in works on each.
    SESSION_SECRET: randomBytes(24).toString('hex'),
    // The bench calls every page many times a minute; H23's read limit is not what is measured.
    QUERIES_PER_MINUTE: '100000',
  }
  const clients: DashboardClient[] = []
  const dashboards = []
  for (const [i, root] of o.roots.entries()) {
    const port = await freePort()
    dashboards.push(await startDashboard(root, i, port, dashEnv, o.logDir))
    clients.push(new DashboardClient(`http://127.0.0.1:${port}`))
  }
  const { accountId } = await clients[0]!.signUp()
  for (const c of clients.slice(1)) {
    for (const [k, v] of clients[0]!.cookies) c.cookies.set(k, v)
    await waitUntil(async () => (await c.get('/api/me')).status === 200, 30_000, 'the account at every dashboard')
  }

  o.say(
    `dashboard: filling ${o.sizes.events.toLocaleString('en-US')} events, ${o.sizes.persons.toLocaleString('en-US')} persons into ${cfg.clickhouse.database} (not measured)`,
  )
  const ch = openClickHouse(cfg.clickhouse, { requestTimeoutMs: 1_800_000 })
  const t0 = performance.now()
  const fillNowS = Math.floor(Date.now() / 1000)
  await fillAccount(ch, cfg.clickhouse.database, accountId, fillNowS, o.sizes)
  const fillSec = Math.round((performance.now() - t0) / 100) / 10
  o.say('dashboard: waiting for the merges of the fill to end (an account filled over 30 days is merged)')
  const mergedSec = await mergesSettled(ch, cfg.clickhouse.database)
  await ch.close()

  const calls = [...PAGE_CALLS, fullestMonthCall(fillNowS * 1000)]
  o.say(`dashboard: timing ${calls.length} page calls on ${o.roots.length} build(s), a cold call then ${o.runs} each`)
  const start = loadavg()
  const timings = await timePages(clients, calls, o.runs)
  const end = loadavg()
  for (const d of dashboards) await stopChild(d)
  await stopChild(projector)
  const builds = o.roots.map((root, i) => ({ root, pages: timings[i]! }))
  return { sizes: o.sizes, fillSec, mergedSec, runs: o.runs, loadAverage: { start, end }, builds }
}
