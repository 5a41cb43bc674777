// Per-account retention (H60): each account with `retention_months` keeps that many months of events;
// older rows are deleted from every table of the database that holds an account's dated rows (an
// account_id, a user_id and a timestamp column: events and identifies today, and any such table added
// later), found as the erasure purge finds its tables (A12). A mutation (`ALTER TABLE ... DELETE`, as
// H35 and the purge do) rewrites the parts, so the rows are gone for every query, FINAL or not, once
// system.mutations says it is done; the job waits for that before it reports. usage_monthly_sharded keeps its
// counts (billing, H33) and retry_ids holds only event ids; profiles (users, user_traits) are not rows
// of one event and stay until the person is erased. Events partitions are months, but a partition holds
// every account's rows, so a per-account retention deletes rows rather than dropping partitions.
// The counts tables (U19, U26) have no user_id, yet a property value can name a person: once the dated
// rows are gone, the account's buckets whose every event is expired go from each of them too (H82).
import type { ClickHouseClient } from '@clickhouse/client'
import { Gauge, type Registry } from 'prom-client'
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import type { Logger } from '../../../shared/src/log.js'
import { Periodic } from './periodic.js'
import { queryRows } from '../../../shared/src/clickhouse.js'
import type { RetentionRules } from '../../../shared/src/privacy/retention.js'
import type { MonthKeysLook, MonthKeysShredder } from './month-keys.js'
import { COUNTS_TABLES, type CountsTable } from '../../../shared/src/rollup/counts-tables.js'
import { mutationsDone, oneServer } from '../clickhouse/mutation-places.js'

/** The rows of `account` older than `cutoff` (Unix ms; rows are compared by their event time). */
const expired = (account: string, cutoff: number) =>
  raw(sql`account_id = ${account} AND timestamp < toDateTime(${Math.floor(cutoff / 1000)})`)

/** The buckets of `account` that end at or before `cutoff` (Unix ms): every event of them is expired. */
const expiredBuckets = (account: string, cutoff: number, c: CountsTable) =>
  raw(sql`account_id = ${account} AND ${ident(c.column)} <= toDateTime(${Math.floor(cutoff / 1000) - c.seconds})`)

export interface AccountRetentionRun {
  /** When the run started (the injected clock's time). */
  at: number
  /** Rows deleted per account and table. */
  removed: { account_id: string; table: string; cutoff: number; rows: number }[]
  /** A23, with sealing on: the expired months' data keys per account (tombstoned, left on the topic). */
  keys?: MonthKeysLook[]
}

export interface AccountRetentionOptions {
  now?: () => number
  pollMs?: number
  /** The longest a pass waits for its mutations (MUTATION_WAIT_MS; the config's default without it). */
  mutationWaitMs?: number
  registry?: Registry
  /** A23: with sealing on, the expired months' data keys are forgotten too. */
  keys?: MonthKeysShredder
}

export class AccountRetention {
  private readonly periodic = new Periodic(
    () => this.runOnce(),
    (err) => this.log.warn('account retention failed; trying again later', { err }),
  )
  /** A23: between runs, looks at the keys topic while expired month keys are still on it. */
  private readonly watch = new Periodic(
    async () => {
      if (this.opts.keys?.watching) await this.opts.keys.look(this.rules.cutoffs(this.now()))
    },
    (err) => this.log.warn('account retention: keys topic not checked; tried again', { err }),
  )
  private readonly now: () => number
  private readonly gauges?: { lastRun: Gauge; removed: Gauge; lag: Gauge }
  private lastRunAt?: number

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
    private readonly rules: RetentionRules,
    private readonly log: Logger,
    private readonly opts: AccountRetentionOptions = {},
  ) {
    this.now = opts.now ?? Date.now
    if (opts.registry) this.gauges = retentionGauges(opts.registry, () => this.lagSeconds())
  }

  /**
   * One pass: for each account with a retention, delete its expired rows and wait until they are gone; then
   * its expired buckets of the counts tables, after the rows, so that a recount running meanwhile (U25) reads
   * the events without them or writes before the buckets' deletion (a count written after it goes next run).
   */
  async runOnce(): Promise<AccountRetentionRun> {
    const at = this.now()
    const cutoffs = this.rules.cutoffs(at)
    const dated = (await datedTables(this.ch, this.database)).map((table) => ({ table, expired }))
    const counts = COUNTS_TABLES.map((c) => ({
      table: c.table,
      expired: (account: string, cutoff: number) => expiredBuckets(account, cutoff, c),
    }))
    const removed = await this.deleteFrom(dated, cutoffs)
    removed.push(...(await this.deleteFrom(counts, cutoffs)))
    const keys = await this.opts.keys?.look(cutoffs)
    this.lastRunAt = at
    const total = removed.reduce((n, r) => n + r.rows, 0)
    this.gauges?.lastRun.set(at / 1000)
    this.gauges?.removed.set(total)
    if (total > 0) this.log.info('account retention: expired rows deleted', { removed })
    return { at, removed, keys }
  }

  /** Deletes each account's expired rows of `tables` and waits until the mutations are done. */
  private async deleteFrom(
    tables: { table: string; expired: (account: string, cutoff: number) => SqlRaw }[],
    cutoffs: { account_id: string; cutoff: number }[],
  ): Promise<AccountRetentionRun['removed']> {
    const removed: Array<AccountRetentionRun['removed'][number] & { condition: SqlRaw }> = []
    for (const { account_id, cutoff } of cutoffs) {
      for (const { table, expired: where } of tables) {
        const condition = where(account_id, cutoff)
        const [row] = await queryRows<{ n: string }>(
          this.ch,
          sql`SELECT count() AS n FROM ${ident(this.database, table)} WHERE ${condition}`,
        )
        const rows = Number(row?.n ?? 0)
        if (rows > 0) removed.push({ account_id, table, cutoff, rows, condition })
      }
    }
    if (removed.length === 0) return []
    // H85: bounded, and not behind a mutation of these tables still pending (as the erasure purge).
    const settled = () =>
      mutationsDone(
        this.ch,
        oneServer(this.database),
        this.database,
        { timeoutMs: this.opts.mutationWaitMs, pollMs: this.opts.pollMs ?? 200 },
        [...new Set(removed.map((r) => r.table))],
      )
    await settled()
    for (const { table, condition } of removed)
      await this.ch.command({ query: sql`ALTER TABLE ${ident(this.database, table)} DELETE WHERE ${condition}` })
    await settled()
    return removed.map(({ condition: _, ...r }) => r)
  }

  /** Runs now and every `intervalMs`; a failed pass is logged and tried again at the next. */
  start(intervalMs: number): void {
    this.periodic.start(intervalMs)
    if (this.opts.keys) this.watch.start(this.opts.keys.checkMs)
  }

  close(): void {
    this.periodic.close()
    this.watch.close()
  }

  /** Seconds since the last completed run (how stale the deletions may be); 0 before the first. */
  private lagSeconds(): number {
    return this.lastRunAt === undefined ? 0 : Math.max(0, (this.now() - this.lastRunAt) / 1000)
  }
}

/** The tables (not views) of `database` with account_id, user_id and timestamp columns. */
export async function datedTables(ch: ClickHouseClient, database: string): Promise<string[]> {
  const rows = await (
    await ch.query({
      query: sql`
    SELECT c.table AS table FROM system.columns AS c
    WHERE c.database = ${database} AND c.name IN ('account_id', 'user_id', 'timestamp')
      AND c.table IN (SELECT name FROM system.tables WHERE database = ${database} AND engine LIKE '%MergeTree')
    GROUP BY c.table HAVING count() = 3 ORDER BY c.table`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string }>()
  return rows.map((r) => r.table)
}

function retentionGauges(registry: Registry, lag: () => number) {
  return {
    lastRun: new Gauge({
      name: 'projector_retention_last_run_seconds',
      help: 'H60: Unix time of the last completed per-account retention run.',
      registers: [registry],
    }),
    removed: new Gauge({
      name: 'projector_retention_rows_removed',
      help: 'H60: rows the last per-account retention run deleted (every account and table).',
      registers: [registry],
    }),
    lag: new Gauge({
      name: 'projector_retention_lag_seconds',
      help: 'H60: seconds since the last completed per-account retention run.',
      registers: [registry],
      collect() {
        this.set(lag())
      },
    }),
  }
}
