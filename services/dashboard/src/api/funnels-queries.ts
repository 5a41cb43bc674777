// The Funnels read (decision U15 of docs/design.md): of the persons who did step 1 in a period, how
// many went on to do steps 2..n in that order within a conversion window of their step 1. Persons,
// not ids: an anonymous page view then a signup under the known id is one person (person-events.ts,
// H50). The SQL is built by a pure function, every value bound by schemas/clickhouse/sql.ts.
// windowFunnel is given one row per (event, step it matches) and a time that orders the steps of one
// tick by step, so that 18.16 and current servers answer alike (U31): 18.16 keeps a time in an Int32
// (a time from 2^31 on never starts a funnel there) and takes the steps of one tick in the order they
// come, current servers by step. The time is a UInt32 (18.16 refuses a UInt64, U22).
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

/** 18.16's windowFunnel keeps times in an Int32: every time it is given stays below this (U31). */
const TIME_LIMIT = 2 ** 31

/**
 * The funnel's clock: ticks since the second the read starts at. A tick is 1 ms when the read (period and
 * one window) times the number of steps stays under 2^31 ms, else the fewest milliseconds that make it
 * (U31: windowFunnel's time is tick * steps + step, so a tick holds one slot per step); the window is
 * counted in the same ticks.
 */
export function funnelClock(f: FunnelSpec): { baseMs: number; tickMs: number; window: number } {
  const baseMs = Math.floor(f.from.getTime() / 1000) * 1000
  // The read ends before the second after to + window (person-events.ts bounds `timestamp`).
  const span = f.to.getTime() + f.windowMs + 1000 - baseMs
  const tickMs = Math.max(1, Math.ceil(span / Math.floor(TIME_LIMIT / f.steps.length)))
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
  const n = f.steps.length
  // Each row once per step it matches (one event may be two steps, e.g. `view` and `view where plan=a`),
  // at tick * n + step: the steps of one tick come in step order, and a window of w ticks is w * n + n - 1
  // in this time, since a later step's slot is at most n - 1 past its tick's first (U31).
  const matched = `arrayJoin(arrayFilter(s -> s < ${n}, [${Object.keys(steps)
    .map((c, i) => `if(${c}, ${i}, ${n})`)
    .join(', ')}])) AS step`
  const tick = sql`intDiv(timestamp_ms - ${clock.baseMs}, ${clock.tickMs})`
  const levels = f.steps.map((_, i) => `step = ${i}`).join(', ')
  return sql`SELECT ${raw(counts)}
FROM (
  SELECT person, windowFunnel(${clock.window * n + n - 1})(toUInt32(tick * ${n} + step), ${raw(levels)}) AS level
  FROM (SELECT person, ${raw(tick)} AS tick, ${raw(matched)} FROM ${source})
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
