// Exact monthly usage from ClickHouse (H5, H6, U2). usage_monthly holds uniqExact
// states of event_ids per (account, month of receipt, environment), so events
// projected twice are counted once whether or not parts have merged.

import type { ClickHouseClient } from '@clickhouse/client'
import { ident, sql } from '../../../../schemas/clickhouse/sql.js'
import { monthStart } from './month-key.js'

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
  const query = sql`SELECT account_id, uniqExactMerge(events_state) AS events
FROM ${ident(database, 'usage_monthly')}
WHERE month = toDate(${monthStart(monthKey)}) AND environment = 'live'
GROUP BY account_id`
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
  const query = sql`SELECT account_id, environment, uniqExactMerge(events_state) AS events
FROM ${ident(database, 'usage_monthly')}
WHERE month = toDate(${monthStart(monthKey)})
GROUP BY account_id, environment`
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
  const query = sql`SELECT environment, uniqExactMerge(events_state) AS events, uniqExactMerge(emails_state) AS emails
FROM ${ident(database, 'usage_monthly')}
WHERE account_id = ${accountId} AND month = toDate(${monthStart(monthKey)})
GROUP BY environment`
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
