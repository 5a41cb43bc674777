// The Refused requests page's read (U16, H57): an account's refused requests counted by error code per
// hour or minute, and its latest refused samples, from the tables the projector fills from the refusals
// topic (migration 011, H65). Both tables collapse a record projected twice only when read with FINAL
// (A5), so every read here uses it, after the sort key's prefix (account_id, time) narrowed the parts.
// Buckets are integer arithmetic on the UTC second, valid on ClickHouse 18.16 and current (A9).
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import type { Environment } from './queries.js'

export type RefusedPeriod = '24h' | '7d'
export type RefusedInterval = 'hour' | 'minute'
export const REFUSED_PERIODS: Record<RefusedPeriod, number> = { '24h': 86_400_000, '7d': 7 * 86_400_000 }
const STEP_SECONDS: Record<RefusedInterval, number> = { hour: 3600, minute: 60 }

export interface RefusedSpec {
  environment?: Environment
  from: Date
  to: Date
  interval: RefusedInterval
  samples: number
}

export interface RefusedCount {
  /** The bucket's start, ISO 8601. */
  time: string
  code: string
  count: number
}

export interface RefusedSample {
  at: string
  code: string
  message: string
  endpoint: string
  environment: string
  /** The refused body's first 2,048 characters, keys already replaced by ingest (H65). */
  body: string
}

export interface Refused {
  from: string
  to: string
  interval: RefusedInterval
  counts: RefusedCount[]
  totals: Array<{ code: string; count: number }>
  samples: RefusedSample[]
}

const envFilter = (env?: Environment): SqlRaw => (env ? raw(sql` AND environment = ${env}`) : raw(''))

/** The counts query (pure). */
export function refusedCountsSql(database: string, accountId: string, s: RefusedSpec): string {
  const step = STEP_SECONDS[s.interval]
  return (
    sql`SELECT intDiv(toUInt32(minute), ${step}) * ${step} AS bucket, code, sum(count) AS n
FROM ${ident(database, 'refusals_by_minute')} FINAL
WHERE account_id = ${accountId} AND minute >= toDateTime(${s.from}, 'UTC') AND minute < toDateTime(${s.to}, 'UTC')` +
    envFilter(s.environment).text +
    `
GROUP BY bucket, code
ORDER BY bucket, code`
  )
}

/** The samples query (pure): the latest first. */
export function refusedSamplesSql(database: string, accountId: string, s: RefusedSpec): string {
  return (
    sql`SELECT at_ms, code, message, endpoint, environment, body
FROM ${ident(database, 'refused_samples')} FINAL
WHERE account_id = ${accountId} AND at >= toDateTime(${s.from}, 'UTC') AND at < toDateTime(${s.to}, 'UTC')` +
    envFilter(s.environment).text +
    sql`
ORDER BY at_ms DESC, instance_id, drained_at_ms, seq
LIMIT ${s.samples}`
  )
}

/** Sums per code, the largest first (pure). */
export function totalsByCode(counts: RefusedCount[]): Array<{ code: string; count: number }> {
  const by = new Map<string, number>()
  for (const c of counts) by.set(c.code, (by.get(c.code) ?? 0) + c.count)
  return [...by]
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1))
}

export class RefusedQueries {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
  ) {}

  private async rows<T>(query: string): Promise<T[]> {
    return (await this.ch.query({ query, format: 'JSONEachRow' })).json<T>()
  }

  async refused(accountId: string, s: RefusedSpec): Promise<Refused> {
    const [countRows, sampleRows] = await Promise.all([
      this.rows<{ bucket: string | number; code: string; n: string | number }>(
        refusedCountsSql(this.database, accountId, s),
      ),
      this.rows<RefusedSample & { at_ms: string | number }>(refusedSamplesSql(this.database, accountId, s)),
    ])
    const counts = countRows.map((r) => ({
      time: new Date(Number(r.bucket) * 1000).toISOString(),
      code: r.code,
      count: Number(r.n),
    }))
    return {
      from: s.from.toISOString(),
      to: s.to.toISOString(),
      interval: s.interval,
      counts,
      totals: totalsByCode(counts),
      samples: sampleRows.map(({ at_ms, ...r }) => ({ ...r, at: new Date(Number(at_ms)).toISOString() })),
    }
  }
}
