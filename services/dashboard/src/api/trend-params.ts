// The Trends page's query parameters (U13 of docs/design.md) as a TrendSpec: the period (24h, 7d, 30d
// or custom from/to), the interval, the breakdown property or trait (U27) and up to MAX_FILTERS filters key=value.
import { validation } from '../errors.js'
import { INTERVALS, type Interval, type TrendFilter, type TrendSpec } from './trends-queries.js'
import { periodRange } from './period-param.js'
import type { Environment } from './queries.js'

export const PERIODS = { '24h': 1, '7d': 7, '30d': 30 } as const
export const MAX_FILTERS = 5
const DAY = 86_400_000
const KEY_MAX = 255
const PERIOD_LENGTHS = Object.fromEntries(Object.entries(PERIODS).map(([name, days]) => [name, days * DAY]))

export interface TrendQuery {
  period?: string
  interval?: string
  filters: string[]
  event?: string
  breakdown?: string
  breakdownTrait?: string
  environment?: Environment
  /** The custom period, read by params.ts's range() when period is custom. */
  custom: () => { from: Date; to: Date }
}

export function filterOf(f: string): TrendFilter {
  const at = f.indexOf('=')
  if (at < 1 || at > KEY_MAX) throw validation('filter must be key=value', { field: 'filter' })
  return { key: f.slice(0, at), value: f.slice(at + 1) }
}

/** The spec of a trend and of the period before it (the comparison), both the same length. */
export function trendSpecOf(p: TrendQuery, now: number): { current: TrendSpec; previous: TrendSpec } {
  const interval = (p.interval ?? 'day') as Interval
  if (!INTERVALS.includes(interval)) throw validation('interval must be hour, day or week', { field: 'interval' })
  const { from, to } = periodRange(p.period ?? '7d', PERIOD_LENGTHS, now, p.custom)
  if (p.filters.length > MAX_FILTERS) throw validation(`at most ${MAX_FILTERS} filters`, { field: 'filter' })
  if (p.breakdown && p.breakdownTrait)
    throw validation('breakdown and breakdown_trait: one at a time', { field: 'breakdown_trait' })
  if ((p.breakdownTrait?.length ?? 0) > KEY_MAX)
    throw validation(`breakdown_trait is at most ${KEY_MAX} characters`, { field: 'breakdown_trait' })
  const current: TrendSpec = {
    event: p.event,
    environment: p.environment,
    from,
    to,
    interval,
    breakdown: p.breakdown,
    ...(p.breakdownTrait ? { breakdownTrait: p.breakdownTrait } : {}),
    filters: p.filters.map(filterOf),
  }
  const length = to.getTime() - from.getTime()
  return { current, previous: { ...current, from: new Date(from.getTime() - length), to: from } }
}
