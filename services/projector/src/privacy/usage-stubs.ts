// What an erased person's events still count for (A12): usage_monthly_sharded keeps counts, not identities,
// and an erased person's events were billed. A record the projector does not project because of an
// erasure (in a replay, or one that raced the erasure) still adds its event id to its month's count,
// written straight into usage_monthly_sharded without any row of the person, in the shard of its id (H83),
// where the id was counted if it was projected before. uniqExact counts each id once, so writing a stub
// again (a crash before the offsets were committed, a second replay) changes nothing.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql } from '../../../../schemas/clickhouse/sql.js'
import { monthKeyOf, monthStart } from '../../../shared/src/usage/month-key.js'
import { usageShardSql } from '../../../shared/src/usage/usage-query.js'

export interface UsageStub {
  account_id: string
  environment: 'live' | 'test'
  event_id: string
  received_at: number
}

/** The INSERT that adds the stubs' event ids to usage_monthly_sharded: one row per (account, month, environment, shard). */
export function usageStubInsert(database: string, stubs: readonly UsageStub[]): string {
  const groups = new Map<string, { account: string; month: string; environment: string; ids: string[] }>()
  for (const s of stubs) {
    const month = monthStart(monthKeyOf(s.received_at))
    const k = `${s.account_id}\u0000${month}\u0000${s.environment}`
    let g = groups.get(k)
    if (!g) groups.set(k, (g = { account: s.account_id, month, environment: s.environment, ids: [] }))
    g.ids.push(s.event_id)
  }
  const selects = [...groups.values()].map(
    (g) =>
      sql`SELECT ${g.account}, toDate(${g.month}), CAST(${g.environment} AS Enum8('live' = 1, 'test' = 2)), ${raw(usageShardSql('id'))} AS shard, uniqExactState(id), arrayReduce('uniqExactState', emptyArrayString()) FROM (SELECT arrayJoin(${g.ids}) AS id) GROUP BY shard`,
  )
  return `INSERT INTO ${ident(database, 'usage_monthly_sharded')} (account_id, month, environment, shard, events_state, emails_state) ${selects.join(' UNION ALL ')}`
}

export async function writeUsageStubs(
  ch: ClickHouseClient,
  database: string,
  stubs: readonly UsageStub[],
): Promise<void> {
  if (stubs.length > 0) await ch.command({ query: usageStubInsert(database, stubs) })
}
