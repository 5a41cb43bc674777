// The Funnels read (decision U15 of docs/design.md): of the persons who did step 1 in a period, how
// many went on to do steps 2..n in that order within a conversion window of their step 1. Persons,
// not ids: an anonymous page view then a signup under the known id is one person (person-events.ts,
// H50). The SQL is built by a pure function, every value bound by schemas/clickhouse/sql.ts;
// windowFunnel takes the time as a UInt32 on 18.16 (a UInt64 is refused there, code 43) and any
// unsigned integer on current ClickHouse (A9, A10): funnelClock counts it in ticks since the read's
// first second, milliseconds whenever they fit (U22), so steps are ordered to the millisecond.
import type { ClickHouseClient } from '@clickhouse/client'
import { sql, raw } from '../../../../schemas/clickhouse/sql.js'
import type { Environment } from './queries.js'
import { personEventsSql } from './person-events.js'
import { propertySql, type TrendFilter } from './trends-queries.js'

export const MIN_STEPS = 2
export const MAX_STEPS = 5
export interface FunnelStep {
  event: string
  /** One property's value as text (as a Trends filter), if given. */
  filter?: TrendFilter
}
export interface FunnelSpec {
  steps: FunnelStep[]
  /** The conversion window in milliseconds, from a person's step 1. */
  windowMs: number
  environment?: Environment
  /** Step 1 happens in [from, to); later steps may follow it up to windowMs after `to`. */
  from: Date
  to: Date
}
export interface FunnelStepResult extends FunnelStep {
  persons: number
  /** Persons of this step over persons of step 1 (1 for step 1; 0 when step 1 has none). */
  conversion: number
  /** Persons of the step before who did not reach this one (0 for step 1). */
  dropoff: number
  /** dropoff over persons of the step before (0 for step 1, or when it had none). */
  dropoff_rate: number
}
export interface Funnel {
  steps: FunnelStepResult[]
}

const UINT32_MAX = 4_294_967_295

/**
 * windowFunnel's clock: ticks since the second the read starts at, as a UInt32. A tick is 1 ms when
 * the read (period and one window) spans at most 49 days, else the fewest milliseconds that make it
 * fit (10 ms for a 366-day custom period and a 30-day window); the window is counted in the same ticks.
 */
export function funnelClock(f: FunnelSpec): { baseMs: number; tickMs: number; window: number } {
  const baseMs = Math.floor(f.from.getTime() / 1000) * 1000
  // The read ends before the second after to + window (person-events.ts bounds `timestamp`).
  const span = f.to.getTime() + f.windowMs + 1000 - baseMs
  const tickMs = Math.max(1, Math.ceil(span / UINT32_MAX))
  return { baseMs, tickMs, window: Math.floor(f.windowMs / tickMs) }
}

function stepSql(s: FunnelStep): string {
  return sql`event = ${s.event}` + (s.filter ? sql` AND ${propertySql(s.filter.key)} = ${s.filter.value}` : '')
}

/** The query of a funnel: one row with columns s1..sn, the persons who reached each step. */
export function funnelSql(database: string, accountId: string, f: FunnelSpec): string {
  // Step 1 must start in the period; the rows after `to` are only there to finish a funnel.
  const conditions = f.steps.map((s, i) =>
    i === 0 ? `${stepSql(s)}${sql` AND timestamp_ms < ${f.to.getTime()}`}` : stepSql(s),
  )
  const steps = Object.fromEntries(conditions.map((c, i) => [`step${i + 1}`, c]))
  const source = personEventsSql(
    database,
    {
      accountId,
      environment: f.environment,
      from: f.from,
      to: new Date(f.to.getTime() + f.windowMs),
      events: [...new Set(f.steps.map((s) => s.event))],
    },
    steps,
    { onlyMatching: f.steps.some((s) => s.filter) },
  )
  const counts = f.steps.map((_, i) => `countIf(level >= ${i + 1}) AS s${i + 1}`).join(', ')
  const clock = funnelClock(f)
  const time = sql`toUInt32(intDiv(timestamp_ms - ${clock.baseMs}, ${clock.tickMs}))`
  return sql`SELECT ${raw(counts)}
FROM (
  SELECT person, windowFunnel(${clock.window})(${raw(time)}, ${raw(Object.keys(steps).join(', '))}) AS level
  FROM ${source}
  GROUP BY person
)`
}

/** The row of funnelSql as steps with conversion and drop-off. */
export function toFunnel(row: Record<string, string | number> | undefined, f: FunnelSpec): Funnel {
  const persons = f.steps.map((_, i) => Number(row?.[`s${i + 1}`] ?? 0))
  const first = persons[0] ?? 0
  return {
    steps: f.steps.map((s, i) => {
      const before = i === 0 ? persons[0]! : persons[i - 1]!
      const dropoff = before - persons[i]!
      return {
        ...s,
        persons: persons[i]!,
        conversion: first === 0 ? 0 : persons[i]! / first,
        dropoff,
        dropoff_rate: before === 0 ? 0 : dropoff / before,
      }
    }),
  }
}

export class FunnelQueries {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
  ) {}

  async funnel(accountId: string, f: FunnelSpec): Promise<Funnel> {
    const r = await this.ch.query({ query: funnelSql(this.database, accountId, f), format: 'JSONEachRow' })
    return toFunnel(((await r.json()) as Array<Record<string, string | number>>)[0], f)
  }
}
