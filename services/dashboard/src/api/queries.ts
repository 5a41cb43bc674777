// Read models of the dashboard, all from ClickHouse (schemas/clickhouse/README.md). Every value is
// bound by schemas/clickhouse/sql.ts (18.16 has no server-side parameters): never concatenated.
// Every query is scoped to one account id, which the caller takes from the session only.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, literal, sql, raw, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import { accountUsage, type AccountUsage } from '../../../shared/src/usage/usage-query.js'

export type Environment = 'live' | 'test'

export interface EventRow {
  event_id: string
  environment: Environment
  key_id: string
  event: string
  user_id: string
  /** The anonymous id the record carried (H52); '' for none. */
  anonymous_id: string
  user_email: string
  timestamp: string
  received_at: string
  properties: unknown
  context: unknown
}

const num = (x: string | number | null | undefined) => Number(x ?? 0)
const iso = (ms: string | number) => new Date(num(ms)).toISOString()
export const parseJson = (s: string) => {
  if (!s) return null
  try {
    return JSON.parse(s)
  } catch {
    return s
  }
}

export class DashboardQueries {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
  ) {}

  private t(table: string) {
    return ident(this.database, table)
  }

  private async rows<T>(query: string): Promise<T[]> {
    return (await this.ch.query({ query, format: 'JSONEachRow' })).json<T>()
  }

  private envFilter(env?: Environment): SqlRaw {
    return env ? raw(sql` AND environment = ${env}`) : raw('')
  }

  /** Events (live and test apart) and emails of the account in the month 'YYYY-MM' (H5, H6, U2). */
  monthUsage(accountId: string, monthKey: string): Promise<AccountUsage> {
    return accountUsage(this.ch, this.database, accountId, monthKey)
  }

  /** Latest received time per key of the account (epoch ms), from events and identifies. */
  async keysLastUsed(accountId: string): Promise<Map<string, number>> {
    const q = sql`SELECT key_id, max(last) AS last FROM (
  SELECT key_id, max(received_at_ms) AS last FROM ${this.t('events')} WHERE account_id = ${accountId} GROUP BY key_id
  UNION ALL
  SELECT key_id, max(received_at_ms) AS last FROM ${this.t('identifies')} WHERE account_id = ${accountId} GROUP BY key_id
) GROUP BY key_id`
    const rows = await this.rows<{ key_id: string; last: string }>(q)
    return new Map(rows.map((r) => [r.key_id, num(r.last)]))
  }

  /**
   * Accepted requests of the account in the current epoch minute (the ingest's per-minute window, H3),
   * estimated from what has been projected: one request = the records sharing a key and a receipt
   * time (the ingest stamps one received_at per request). Refused requests (401, 429, 4xx) are not in
   * ClickHouse, so they are not counted; projection lags by about a second.
   */
  async requestsThisMinute(accountId: string, now = Date.now()): Promise<{ count: number; windowStart: number }> {
    const start = now - (now % 60_000)
    const q = sql`SELECT uniqExact(key_id, received_at_ms) AS requests FROM (
  SELECT key_id, received_at_ms FROM ${this.t('events')} WHERE account_id = ${accountId} AND received_at_ms >= ${start}
  UNION ALL
  SELECT key_id, received_at_ms FROM ${this.t('identifies')} WHERE account_id = ${accountId} AND received_at_ms >= ${start}
)`
    const [r] = await this.rows<{ requests: string }>(q)
    return { count: num(r?.requests), windowStart: start }
  }

  /** Events per hour (event time) over [from, to), per environment; hours without events are filled with 0. */
  async eventsPerHour(
    accountId: string,
    from: Date,
    to: Date,
  ): Promise<Array<{ hour: string; live: number; test: number }>> {
    const q = sql`SELECT toUnixTimestamp(toStartOfHour(timestamp)) AS hour, environment, count() AS events
FROM ${this.t('events')} FINAL
WHERE account_id = ${accountId} AND timestamp >= toDateTime(${from}, 'UTC') AND timestamp < toDateTime(${to}, 'UTC')
GROUP BY hour, environment
ORDER BY hour`
    const rows = await this.rows<{ hour: string; environment: Environment; events: string }>(q)
    const byHour = new Map<number, { live: number; test: number }>()
    for (const r of rows) {
      const h = num(r.hour) * 1000
      const b = byHour.get(h) ?? { live: 0, test: 0 }
      b[r.environment] += num(r.events)
      byHour.set(h, b)
    }
    const out: Array<{ hour: string; live: number; test: number }> = []
    const first = from.getTime() - (from.getTime() % 3_600_000)
    for (let h = first; h < to.getTime(); h += 3_600_000)
      out.push({ hour: new Date(h).toISOString(), ...(byHour.get(h) ?? { live: 0, test: 0 }) })
    return out
  }

  async recentEvents(
    accountId: string,
    f: {
      event?: string
      userId?: string
      /** Any of these user ids: a person's own and the anonymous ids that map to them (H50). */
      userIds?: string[]
      eventContains?: string
      userContains?: string
      environment?: Environment
      from: Date
      to: Date
      limit: number
    },
  ): Promise<EventRow[]> {
    // FINAL merges every row of the time range before a filter on a column outside the sort key (a
    // user, a part of a name): 2.5-4.9 s for one user at 10 million events (BENCHMARKS.md, "Dashboard
    // pages"). With such a filter the rows are read without FINAL and deduplicated as FINAL would: one
    // row per sort key (A5), the latest received (the version column). Without one, FINAL reads only
    // the range and is the faster of the two.
    const outsideKey = Boolean(f.userId || f.userIds?.length || f.eventContains || f.userContains)
    const q =
      sql`SELECT event_id, environment, key_id, event, user_id, anonymous_id, user_email, timestamp_ms, received_at_ms, properties, context
FROM ${this.t('events')}${raw(outsideKey ? '' : ' FINAL')}
WHERE account_id = ${accountId} AND timestamp >= toDateTime(${f.from}, 'UTC') AND timestamp < toDateTime(${f.to}, 'UTC')` +
      (f.event ? sql` AND event = ${f.event}` : '') +
      (f.userId ? sql` AND user_id = ${f.userId}` : '') +
      (f.userIds?.length ? ` AND user_id IN (${f.userIds.map((id) => literal(id)).join(', ')})` : '') +
      // Substring matches, as the Live page filters (U7).
      (f.eventContains ? sql` AND position(event, ${f.eventContains}) > 0` : '') +
      (f.userContains ? sql` AND position(user_id, ${f.userContains}) > 0` : '') +
      this.envFilter(f.environment).text +
      (outsideKey
        ? '\nORDER BY timestamp_ms DESC, event_id, received_at_ms DESC\nLIMIT 1 BY environment, event, timestamp, event_id'
        : '\nORDER BY timestamp_ms DESC, event_id') +
      sql`
LIMIT ${f.limit}`
    const rows = await this.rows<Record<string, string>>(q)
    return rows.map((r) => ({
      event_id: r.event_id!,
      environment: r.environment as Environment,
      key_id: r.key_id!,
      event: r.event!,
      user_id: r.user_id!,
      anonymous_id: r.anonymous_id ?? '',
      user_email: r.user_email!,
      timestamp: iso(r.timestamp_ms!),
      received_at: iso(r.received_at_ms!),
      properties: parseJson(r.properties!),
      context: parseJson(r.context!),
    }))
  }

  async topEvents(
    accountId: string,
    f: { environment?: Environment; from: Date; to: Date; limit: number },
  ): Promise<Array<{ event: string; events: number; users: number }>> {
    const q =
      sql`SELECT event, count() AS events, uniqExact(user_id) AS users
FROM ${this.t('events')} FINAL
WHERE account_id = ${accountId} AND timestamp >= toDateTime(${f.from}, 'UTC') AND timestamp < toDateTime(${f.to}, 'UTC')` +
      this.envFilter(f.environment).text +
      sql`
GROUP BY event
ORDER BY events DESC, event
LIMIT ${f.limit}`
    const rows = await this.rows<{ event: string; events: string; users: string }>(q)
    return rows.map((r) => ({ event: r.event, events: num(r.events), users: num(r.users) }))
  }

  /** The user's profile per environment (test-key data stays apart from live), with current traits. */
  /**
   * The anonymous ids whose current person is this user (identity_map, H50): the visits from before
   * they were known. At most 100, the most recently linked first.
   */
  async anonymousIds(accountId: string, userId: string, environment?: Environment): Promise<string[]> {
    const rows = await this.rows<{ id: string }>(
      sql`SELECT anonymous_id AS id, argMax(user_id, linked_at_ms) AS person, max(linked_at_ms) AS last_ms
FROM ${this.t('identity_links')}
WHERE account_id = ${accountId}` +
        this.envFilter(environment).text +
        sql` AND anonymous_id IN (SELECT anonymous_id FROM ${this.t('identity_links')} WHERE account_id = ${accountId} AND user_id = ${userId})
GROUP BY anonymous_id
HAVING person = ${userId}
ORDER BY last_ms DESC
LIMIT 100`,
    )
    return rows.map((r) => r.id)
  }

  async userProfiles(accountId: string, userId: string, environment?: Environment) {
    const env = this.envFilter(environment).text
    const profiles = await this.rows<{
      environment: Environment
      email: string
      first_seen_ms: string
      last_seen_ms: string
    }>(
      sql`SELECT environment, argMaxMerge(email_state) AS email, minMerge(first_seen_state) AS first_seen_ms, maxMerge(last_seen_state) AS last_seen_ms
FROM ${this.t('users')}
WHERE account_id = ${accountId} AND user_id = ${userId}` +
        env +
        `
GROUP BY environment
ORDER BY environment`,
    )
    const traits = await this.rows<{ environment: Environment; trait_key: string; value: string; set_at_ms: string }>(
      sql`SELECT environment, trait_key, value, set_at_ms
FROM ${this.t('user_traits')} FINAL
WHERE account_id = ${accountId} AND user_id = ${userId}` +
        env +
        `
ORDER BY environment, trait_key`,
    )
    return profiles.map((p) => ({
      environment: p.environment,
      email: p.email || null,
      first_seen: iso(p.first_seen_ms),
      last_seen: iso(p.last_seen_ms),
      traits: Object.fromEntries(
        traits.filter((t) => t.environment === p.environment).map((t) => [t.trait_key, parseJson(t.value)]),
      ),
    }))
  }
}
