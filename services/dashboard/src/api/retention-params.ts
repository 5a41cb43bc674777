// The Retention query parameters (U18 of docs/design.md) as a RetentionSpec: start and return (event
// names, optional), weeks after the cohort's (1..12, default 8), and the period of the cohorts (4w, 8w
// (default), 12w, or custom from/to).
import { validation } from '../errors.js'
import type { Environment } from './queries.js'
import { periodRange } from './period-param.js'
import { MAX_WEEKS_AFTER, type RetentionSpec } from './retention-queries.js'

const WEEK = 7 * 86_400_000
export const COHORT_PERIODS = { '4w': 4, '8w': 8, '12w': 12 } as const
const COHORT_LENGTHS = Object.fromEntries(Object.entries(COHORT_PERIODS).map(([name, weeks]) => [name, weeks * WEEK]))

export interface RetentionQuery {
  start?: string
  return?: string
  weeks?: string
  period?: string
  environment?: Environment
  custom: () => { from: Date; to: Date }
}

export function retentionSpecOf(p: RetentionQuery, now: number): RetentionSpec {
  const weeks = p.weeks === undefined ? 8 : Number(p.weeks)
  if (!Number.isInteger(weeks) || weeks < 1 || weeks > MAX_WEEKS_AFTER)
    throw validation(`weeks must be an integer from 1 to ${MAX_WEEKS_AFTER}`, { field: 'weeks' })
  const { from, to } = periodRange(p.period ?? '8w', COHORT_LENGTHS, now, p.custom)
  return { start: p.start, return: p.return, weeks, environment: p.environment, from, to }
}
