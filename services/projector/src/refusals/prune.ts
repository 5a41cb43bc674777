// Keeps the refusal tables to the topic's 7 days (H65): drops their day partitions older than that.
// A table TTL would do it, but TTL is not valid on ClickHouse 18.16 (A6); DROP PARTITION is, and costs a
// metadata change, not a mutation.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql } from '../../../../schemas/clickhouse/sql.js'
import { queryRows } from '../../../shared/src/clickhouse.js'

export const REFUSALS_KEEP_DAYS = 7
export const REFUSAL_TABLES = ['refusals_by_minute', 'refused_samples'] as const

/** The day partitions (`YYYYMMDD`, migration 011) before which rows are older than the kept days (pure). */
export function oldestKeptDay(now: number): string {
  return new Date(now - REFUSALS_KEEP_DAYS * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')
}

/** Drops what is older than the kept days; returns the partitions dropped. */
export async function pruneRefusals(ch: ClickHouseClient, database: string, now: number): Promise<string[]> {
  const keep = oldestKeptDay(now)
  const dropped: string[] = []
  for (const table of REFUSAL_TABLES) {
    const query = sql`SELECT DISTINCT partition FROM system.parts
WHERE database = ${database} AND table = ${table} AND active AND partition < ${keep}`
    const rows = await queryRows<{ partition: string }>(ch, query)
    for (const { partition } of rows) {
      if (!/^\d{8}$/.test(partition)) continue
      await ch.command({ query: sql`ALTER TABLE ${ident(database, table)} DROP PARTITION ${raw(partition)}` })
      dropped.push(`${table}:${partition}`)
    }
  }
  return dropped
}
