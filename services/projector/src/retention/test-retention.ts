// Retention of test-key rows (H35): rows stored with environment = 'test' (H6) whose event time is more
// than TEST_RETENTION_DAYS old are deleted from events and identifies, by a mutation
// (`ALTER TABLE ... DELETE WHERE`). A table TTL would do it without a job, but the number of days is the
// projector's setting (TEST_RETENTION_DAYS, off by default), and a TTL lives in the table's DDL.
//
// A mutation rewrites the parts it touches in the background, so the job asks first: it issues one only
// when such rows exist and no mutation of that table is still running. The usage counters
// (usage_monthly_sharded) are kept: what was counted stays what was counted (H33). Profiles built from test rows
// (users, user_traits) are not pruned by it.

import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql } from '../../../../schemas/clickhouse/sql.js'
import type { Logger } from '../../../shared/src/log.js'
import { Periodic } from './periodic.js'
import { oneServer, pendingMutations } from '../clickhouse/mutation-places.js'

/** The tables whose test rows are pruned; both are partitioned by the event time the cutoff applies to. */
export const RETENTION_TABLES = ['events', 'identifies'] as const

const DAY_MS = 86_400_000

/** The cutoff (Unix seconds) for a retention of `days` at `now`: the start of the UTC day `days` ago,
 *  so every run of one day issues the same condition. */
export function retentionCutoff(days: number, now: number): number {
  const day = now - (now % DAY_MS)
  return (day - days * DAY_MS) / 1000
}

/** The condition of the rows to delete. */
const expired = (cutoff: number) => raw(sql`environment = 'test' AND timestamp < toDateTime(${cutoff})`)

export interface RetentionRun {
  table: string
  /** Rows matched when the job looked; 0: nothing issued. */
  expired: number
  /** Whether a mutation was issued (not when one was still running). */
  issued: boolean
}

export class TestRetention {
  private readonly periodic = new Periodic(
    () => this.runOnce(),
    (err) => this.log.warn('test-row retention failed; trying again later', { err }),
  )

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
    private readonly days: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** One pass over the tables: a mutation for each that holds expired test rows. */
  async runOnce(): Promise<RetentionRun[]> {
    const cutoff = retentionCutoff(this.days, this.now())
    const out: RetentionRun[] = []
    for (const table of RETENTION_TABLES) {
      const t = ident(this.database, table)
      const [row] = await this.rows<{ n: string }>(sql`SELECT count() AS n FROM ${t} WHERE ${expired(cutoff)}`)
      const n = Number(row?.n ?? 0)
      let issued = false
      // H85: nothing is queued behind a mutation of the table still pending (one that never ends would hold it).
      const pending = n > 0 ? await pendingMutations(this.ch, oneServer(this.database), this.database, [table]) : []
      if (pending.length > 0)
        this.log.info('test-row retention: a mutation of the table is still pending; deleting at a later pass', {
          table,
          pending,
        })
      else if (n > 0) {
        await this.ch.command({ query: sql`ALTER TABLE ${t} DELETE WHERE ${expired(cutoff)}` })
        issued = true
        this.log.info('test-row retention: deleting', { table, rows: n, before: new Date(cutoff * 1000).toISOString() })
      }
      out.push({ table, expired: n, issued })
    }
    return out
  }

  /** Runs now and every `intervalMs`; a failed pass is logged and tried again at the next. */
  start(intervalMs: number): void {
    this.periodic.start(intervalMs)
  }

  close(): void {
    this.periodic.close()
  }

  private async rows<T>(query: string): Promise<T[]> {
    return (await this.ch.query({ query, format: 'JSONEachRow' })).json<T>()
  }
}
