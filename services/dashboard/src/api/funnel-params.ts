// The Funnels query parameters (U15 of docs/design.md) as a FunnelSpec: step1..step5 (event names,
// 2 to 5 of them, in order), where1..where5 (an optional key=value filter of that step, as a Trends
// filter), the window (1h, 1d, 7d, 14d, 30d) and the period (as Trends: 24h, 7d, 30d or custom).
import { validation } from '../errors.js'
import type { Environment } from './queries.js'
import { MAX_STEPS, MIN_STEPS, type FunnelSpec, type FunnelStep } from './funnels-queries.js'
import { filterOf, trendSpecOf } from './trend-params.js'

const HOUR = 3_600_000
export const WINDOWS = {
  '1h': HOUR,
  '1d': 24 * HOUR,
  '7d': 7 * 24 * HOUR,
  '14d': 14 * 24 * HOUR,
  '30d': 30 * 24 * HOUR,
}

export interface FunnelQuery {
  /** stepN and whereN by N (1-based), as given. */
  param: (name: string) => string | undefined
  window?: string
  period?: string
  environment?: Environment
  custom: () => { from: Date; to: Date }
}

export function funnelSpecOf(p: FunnelQuery, now: number): FunnelSpec {
  const steps: FunnelStep[] = []
  for (let i = 1; i <= MAX_STEPS; i++) {
    const event = p.param(`step${i}`)
    const where = p.param(`where${i}`)
    if (!event) {
      if (where) throw validation(`where${i} needs step${i}`, { field: `where${i}` })
      continue
    }
    if (steps.length !== i - 1) throw validation(`step${i} follows a missing step`, { field: `step${i}` })
    // One event matches both of two equal steps in windowFunnel (a single view is "view then view"),
    // so such a funnel would count what did not happen: refused (U15).
    if (steps.length && p.param(`step${i - 1}`) === event && p.param(`where${i - 1}`) === where)
      throw validation(`step${i} repeats step${i - 1}`, { field: `step${i}` })
    steps.push(where ? { event, filter: filterOf(where) } : { event })
  }
  if (steps.length < MIN_STEPS) throw validation(`a funnel has ${MIN_STEPS} to ${MAX_STEPS} steps`, { field: 'step1' })
  const window = p.window ?? '7d'
  if (!(window in WINDOWS)) throw validation('window must be 1h, 1d, 7d, 14d or 30d', { field: 'window' })
  const { from, to } = trendSpecOf({ period: p.period, filters: [], custom: p.custom }, now).current
  return { steps, windowMs: WINDOWS[window as keyof typeof WINDOWS], environment: p.environment, from, to }
}
