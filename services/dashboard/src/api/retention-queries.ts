// The Retention page's read (decision U18 of docs/design.md): weekly cohorts of persons by the week
// (Monday, UTC) of their first event, or first occurrence of a start event, and for each week after it
// (1..N) how many of them came back (any event, or a return event). Persons, not ids: person-events.ts
// (H50). The first event is the person's first ever, so the account's weeks are read from its first
// one up to N+1 weeks past the period. They are read from person_weeks (U23: one row per id, event and
// week, event '' for any event), not from every event. Built by a pure function, every value bound;
// weeks are those of Trends' buckets (U13), and groupUniqArrayIf, arrayPushBack and arrayJoin are valid
// on ClickHouse 18.16 and current (A9, A10).
import type { ClickHouseClient } from '@clickhouse/client'
import { sql, raw } from '../../../../schemas/clickhouse/sql.js'
import type { Environment } from './queries.js'
import { personWeeksSql } from './person-events.js'
import { bucketStart } from './trends-queries.js'

export const MAX_WEEKS_AFTER = 12
const WEEK_S = 7 * 86_400
export interface RetentionSpec {
  /** The event that puts a person in a cohort (its first occurrence); none: any event. */
  start?: string
  /** The event that counts as a return; none: any event. */
  return?: string
  /** Weeks after the cohort's week shown (1..MAX_WEEKS_AFTER). */
  weeks: number
  environment?: Environment
  /** Cohorts are the weeks starting in [week of from, to). */
  from: Date
  to: Date
}
export interface Cohort {
  /** The cohort's Monday, UTC. */
  week: string
  persons: number
  /** Persons back in week k after the cohort's (k = 1..weeks); null for a week not begun by `now`. */
  returned: Array<number | null>
  /** returned[k] over persons. */
  rates: Array<number | null>
}
export interface Retention {
  weeks: number
  cohorts: Cohort[]
}

/** The rows of person_weeks that stand for `event`; none: any event, the rows of event ''. */
const condition = (event: string | undefined) => sql`event = ${event ?? ''}`

/** The query of a retention table: rows of (cohort week epoch seconds, k weeks after, persons); k = 0 is the cohort. */
export function retentionSql(database: string, accountId: string, r: RetentionSpec): string {
  // Every week a cohort of the period can count ends before this bound, so a week starting before it
  // and ending after it changes nothing (its cohort would start after the period).
  const source = personWeeksSql(database, {
    accountId,
    environment: r.environment,
    to: new Date(r.to.getTime() + (r.weeks + 1) * WEEK_S * 1000),
    events: [...new Set([r.start ?? '', r.return ?? ''])],
  })
  const firstWeek = bucketStart(r.from.getTime(), 'week')
  const toS = Math.floor(r.to.getTime() / 1000)
  return sql`SELECT cohort, intDiv(w - cohort, ${WEEK_S}) AS k, uniqExact(person) AS persons
FROM (
  SELECT person, cohort, arrayJoin(arrayPushBack(weeks, cohort)) AS w
  FROM (
    SELECT person, minIf(t, is_start) AS cohort, groupUniqArrayIf(t, is_return) AS weeks
    FROM (SELECT person, t, ${raw(condition(r.start))} AS is_start, ${raw(condition(r.return))} AS is_return FROM ${source})
    GROUP BY person
    HAVING countIf(is_start) > 0
  )
  WHERE cohort >= ${firstWeek} AND cohort < ${toS}
)
WHERE w >= cohort AND k <= ${r.weeks}
GROUP BY cohort, k
ORDER BY cohort, k`
}

/** Rows of retentionSql as cohorts, oldest first, every week 1..weeks present (0, or null if not begun by now). */
export function toRetention(
  rows: Array<{ cohort: string | number; k: string | number; persons: string | number }>,
  r: RetentionSpec,
  now: number,
): Retention {
  const byCohort = new Map<number, number[]>()
  for (const row of rows) {
    const c = Number(row.cohort)
    const counts = byCohort.get(c) ?? byCohort.set(c, new Array(r.weeks + 1).fill(0)).get(c)!
    counts[Number(row.k)] = Number(row.persons)
  }
  const cohorts = [...byCohort].sort(([a], [b]) => a - b)
  return {
    weeks: r.weeks,
    cohorts: cohorts.map(([c, counts]) => {
      const persons = counts[0]!
      const returned = counts.slice(1).map((n, i) => ((c + (i + 1) * WEEK_S) * 1000 > now ? null : n))
      return {
        week: new Date(c * 1000).toISOString(),
        persons,
        returned,
        rates: returned.map((n) => (n === null || persons === 0 ? null : n / persons)),
      }
    }),
  }
}

export class RetentionQueries {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
  ) {}

  async retention(accountId: string, r: RetentionSpec, now: number): Promise<Retention> {
    const res = await this.ch.query({ query: retentionSql(this.database, accountId, r), format: 'JSONEachRow' })
    return toRetention(await res.json(), r, now)
  }
}
