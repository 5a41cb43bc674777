// `npx tsx bench/hourly-queries.ts [--events 10000000] [--runs 5]` (BENCHMARKS.md "Hourly counts"): the
// Trends and Definitions queries on one account's events (bench/dashboard-fill.ts, 30 days), with the hourly
// counts (U19, U25: counted hours from event_counts_hourly, the dirty ones from the events) and without
// (every event), alternating, median of `runs`, checking both give the same answer. The current and the
// previous hour are left dirty, as the live projector leaves them. Also times the breakdown (U13), which
// reads the events either way. On a fresh database of the running ClickHouse (the projector's CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD), dropped at
// the end.
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { openClickHouse } from '../services/shared/src/clickhouse.js'
import { loadProjectorConfig } from '../services/projector/src/config.js'
import { migrate } from '../schemas/clickhouse/migrate.js'
import { fillAccount } from './dashboard-fill.js'
import { insertMarks } from '../services/shared/src/rollup/dirty-hours.js'
import { HOUR_MS, hourFloor } from '../services/shared/src/rollup/event-counts.js'
import { TrendQueries, type TrendSpec } from '../services/dashboard/src/api/trends-queries.js'
import { DefinitionQueries } from '../services/dashboard/src/api/definitions-queries.js'

const { values: a } = parseArgs({
  options: { events: { type: 'string', default: '10000000' }, runs: { type: 'string', default: '5' } },
})
const ACCOUNT = 'bench-hourly'
const cfg = loadProjectorConfig(process.env).clickhouse
const ch = openClickHouse(cfg, { requestTimeoutMs: 600_000 })
const db = `bench_hourly_${randomBytes(4).toString('hex')}`
const say = (s: string) => process.stderr.write(`hourly: ${s}\n`)

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now()
  const r = await f()
  return [performance.now() - t0, r]
}

try {
  await migrate(ch, db)
  const now = Date.now()
  const t0 = Date.now()
  await fillAccount(ch, db, ACCOUNT, Math.floor(now / 1000), { events: Number(a.events), persons: 100_000 })
  const open = hourFloor(now)
  const openHours = [open - HOUR_MS, open].map((hourMs) => ({ accountId: ACCOUNT, hourMs }))
  await insertMarks(ch, db, openHours, { markedMs: now, dirty: true })
  say(`filled ${Number(a.events).toLocaleString('en-US')} events and counted their hours in ${Date.now() - t0} ms`)
  const spec = (days: number, interval: TrendSpec['interval'], over: Partial<TrendSpec> = {}): TrendSpec => ({
    from: new Date(now - days * 86_400_000),
    to: new Date(now),
    interval,
    filters: [],
    ...over,
  })
  const cases: Array<[string, (on: boolean) => Promise<unknown>]> = [
    ['Trends: all events, 30 days by day', (on) => new TrendQueries(ch, db, on).trend(ACCOUNT, spec(30, 'day'))],
    [
      'Trends: one event, 7 days by hour, with the previous period',
      (on) => {
        const q = new TrendQueries(ch, db, on)
        const s = spec(7, 'hour', { event: 'page_viewed' })
        const before = { ...s, from: new Date(s.from.getTime() - 7 * 86_400_000), to: s.from }
        return Promise.all([q.trend(ACCOUNT, s), q.trend(ACCOUNT, before)])
      },
    ],
    [
      'Definitions: the events part',
      // Compared on the counts: the property samples are any rows of each name, not the same ones twice.
      async (on) =>
        (await new DefinitionQueries(ch, db, on).events(ACCOUNT, undefined, now)).map(({ properties: _, ...c }) => c),
    ],
  ]
  for (const [name, run] of cases) {
    const times: Record<'on' | 'off', number[]> = { on: [], off: [] }
    const answers: Record<string, string> = {}
    for (let i = 0; i < Number(a.runs); i++)
      for (const mode of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const [ms, r] = await timed(() => run(mode === 'on'))
        times[mode].push(ms)
        answers[mode] = JSON.stringify(r)
      }
    const same = answers.on === answers.off ? 'same answer' : 'ANSWERS DIFFER'
    console.log(
      `${name}: every event ${median(times.off).toFixed(0)} ms, hourly counts ${median(times.on).toFixed(0)} ms (${same}, load ${loadavg()[0]!.toFixed(1)})`,
    )
  }
  const breakdown: number[] = []
  for (let i = 0; i < Number(a.runs); i++)
    breakdown.push(
      (await timed(() => new TrendQueries(ch, db, true).trend(ACCOUNT, spec(30, 'day', { breakdown: 'plan' }))))[0],
    )
  console.log(`Trends: breakdown by a property, 30 days by day: ${median(breakdown).toFixed(0)} ms`)
} finally {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${db}` }).catch(() => undefined)
  await ch.close()
}
