// Exact monthly usage from ClickHouse (H5, H6, U2). usage_monthly_sharded holds uniqExact states of
// event_ids per (account, month of receipt, environment, shard of the id), so events projected twice are
// counted once whether or not parts have merged. An id is in one shard only (cityHash64(event_id) % 256,
// docs/design.md H83), so a month's count is the sum of its shards' counts; shard 65535 holds what was counted
// before the shards (migration 018), whole, and a month that has it is counted across all its rows at once.

import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import { monthStart } from './month-key.js'

/** The shard that holds the states counted before migration 018 (H83). */
export const LEGACY_SHARD = 65535

/** An event id's shard (H83), as migration 018's view computes it (usage-query.test.ts compares the text). */
export const usageShardSql = (column: string) => `toUInt16(cityHash64(${column}) % 256)`

/**
 * Events and emails per (`keys`, environment) of usage_monthly_sharded's rows matching `where` (a
 * condition on account_id and month): each shard's states merged apart and the counts summed, except in a
 * month of an account that has the legacy shard, whose rows are merged as one set (its ids may be in the
 * other shards too). `keys` is '' or columns ending with a comma.
 */
export function usageCountsSql(database: string, where: SqlRaw, keys: '' | 'account_id, '): string {
  const table = ident(database, 'usage_monthly_sharded')
  const k = raw(keys)
  return sql`SELECT ${k}environment, sum(events) AS events, sum(emails) AS emails FROM (
  SELECT ${k}environment,
    if((account_id, month) IN (SELECT account_id, month FROM ${table} WHERE ${where} AND shard = ${LEGACY_SHARD}), ${LEGACY_SHARD}, shard) AS s,
    uniqExactMerge(events_state) AS events, uniqExactMerge(emails_state) AS emails
  FROM ${table}
  WHERE ${where}
  GROUP BY ${k}environment, s
)
GROUP BY ${k}environment`
}

const monthIs = (monthKey: string) => raw(sql`month = toDate(${monthStart(monthKey)})`)

export interface AccountUsage {
  live: number
  test: number
  emails: number
}

/** Live-key events per account in the month (UTC, by time of receipt). */
export async function monthlyLiveUsage(
  client: ClickHouseClient,
  database: string,
  monthKey: string,
): Promise<Map<string, number>> {
  const query = usageCountsSql(database, raw(sql`${monthIs(monthKey)} AND environment = 'live'`), 'account_id, ')
  const rows = await (await client.query({ query, format: 'JSONEachRow' })).json<{
    account_id: string
    events: string | number
  }>()
  return new Map(rows.map((r) => [r.account_id, Number(r.events)]))
}

/** Live-key and test-key events per account in the month (H5, H33): what ingest reconciles its
 *  quotas with (H34). The same read as monthlyLiveUsage, both environments in one query. */
export async function monthlyUsage(
  client: ClickHouseClient,
  database: string,
  monthKey: string,
): Promise<{ live: Map<string, number>; test: Map<string, number> }> {
  const query = usageCountsSql(database, monthIs(monthKey), 'account_id, ')
  const rows = await (await client.query({ query, format: 'JSONEachRow' })).json<{
    account_id: string
    environment: 'live' | 'test'
    events: string | number
  }>()
  const out = { live: new Map<string, number>(), test: new Map<string, number>() }
  for (const r of rows) out[r.environment].set(r.account_id, Number(r.events))
  return out
}

export async function accountUsage(
  client: ClickHouseClient,
  database: string,
  accountId: string,
  monthKey: string,
): Promise<AccountUsage> {
  const query = usageCountsSql(database, raw(sql`account_id = ${accountId} AND ${monthIs(monthKey)}`), '')
  const rows = await (await client.query({ query, format: 'JSONEachRow' })).json<{
    environment: 'live' | 'test'
    events: string | number
    emails: string | number
  }>()
  const usage: AccountUsage = { live: 0, test: 0, emails: 0 }
  for (const r of rows) {
    usage[r.environment] = Number(r.events)
    usage.emails += Number(r.emails)
  }
  return usage
}
