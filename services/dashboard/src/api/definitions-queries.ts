// Event and trait definitions (what Segment calls the Schema): every event name of the account with
// its counts over 7 and 30 days, first and last seen, and its property keys with inferred types and
// examples; every trait key with its users and examples. Valid on ClickHouse 18.16 and current (A7):
// keys are inferred from sampled rows (schema-inference.ts), read from the account's last day, and for
// a name not seen that day from that name's last day, ranges of the events table's sort key (account,
// environment, event, timestamp), so the sample costs the same however many events the account holds.
// Scoped to the session's account.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, sql, raw, type SqlRaw, type SqlIdentifier } from '../../../../schemas/clickhouse/sql.js'
import type { Environment } from './queries.js'
import { inferKeys, parseStored, type KeyDefinition } from './schema-inference.js'
import { EVENT_COUNTS_TABLE, hourCeil, hourFloor } from '../../../shared/src/rollup/event-counts.js'
import { dirtyHours, END_OF_HOURS_MS, hoursCondition, notTheseHours } from '../../../shared/src/rollup/dirty-hours.js'

export interface EventDefinition {
  event: string
  last_7d: number
  last_30d: number
  total: number
  first_seen: string
  last_seen: string
  properties: KeyDefinition[]
}

export interface TraitDefinition extends KeyDefinition {
  users: number
  first_seen: string
  last_seen: string
}

/** Event names and trait keys listed, and rows sampled per event name or trait key. */
export const DEFINITIONS_LIMIT = 200
export const SAMPLE_ROWS = 20
const DAY_MS = 86_400_000

interface CountRow {
  event: string
  last_7d: string
  last_30d: string
  total: string
  first_ms: string
  last_ms: string
}

const iso = (ms: string | number) => new Date(Number(ms)).toISOString()

const envFilter = (environment?: Environment): SqlRaw => raw(environment ? sql` AND environment = ${environment}` : '')

export class DefinitionQueries {
  private readonly eventsTable: SqlIdentifier
  private readonly traitsTable: SqlIdentifier
  private readonly countsTable: SqlIdentifier

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
    /** HOURLY_COUNTS (U19): count from event_counts_hourly, which the projector keeps only when it is on. */
    private readonly hourlyCounts = false,
  ) {
    this.eventsTable = ident(database, 'events')
    this.traitsTable = ident(database, 'user_traits')
    this.countsTable = ident(database, EVENT_COUNTS_TABLE)
  }

  private rows<T>(query: string): Promise<T[]> {
    return this.ch.query({ query, format: 'JSONEachRow' }).then((r) => r.json<T>())
  }

  async events(accountId: string, environment: Environment | undefined, now: number): Promise<EventDefinition[]> {
    // The counts and the account's last day of samples at once; a second read only for the names
    // not seen that day (a round trip less on the page, BENCHMARKS.md "Dashboard pages").
    const [counts, recent] = await Promise.all([
      this.hourlyCounts ? this.counts(accountId, environment, now) : this.eventCounts(accountId, environment, now),
      this.samples(accountId, environment, sql`timestamp >= toDateTime(${new Date(now - DAY_MS)}, 'UTC')`),
    ])
    const byEvent = new Map<string, unknown[]>()
    const add = (rows: Array<{ event: string; properties: string }>) => {
      for (const s of rows)
        (byEvent.get(s.event) ?? byEvent.set(s.event, []).get(s.event)!).push(parseStored(s.properties))
    }
    add(recent)
    const older = counts.filter((c) => !byEvent.has(c.event))
    // Each such name's last day: (event = x AND timestamp >= its last - 1 day), ranges of the sort key.
    if (older.length > 0)
      add(
        await this.samples(
          accountId,
          environment,
          older
            .map(
              (c) =>
                sql`(event = ${c.event} AND timestamp >= toDateTime(${new Date(Number(c.last_ms) - DAY_MS)}, 'UTC'))`,
            )
            .join(' OR '),
        ),
      )
    return counts.map((c) => ({
      event: c.event,
      last_7d: Number(c.last_7d),
      last_30d: Number(c.last_30d),
      total: Number(c.total),
      first_seen: iso(c.first_ms),
      last_seen: iso(c.last_ms),
      properties: inferKeys(byEvent.get(c.event) ?? []),
    }))
  }

  /** Each name's counts read from every event of the account, without FINAL (U8): HOURLY_COUNTS off. */
  private eventCounts(accountId: string, environment: Environment | undefined, now: number) {
    return this.rows<CountRow>(sql`
SELECT event, countIf(timestamp_ms >= ${now - 7 * DAY_MS}) AS last_7d, countIf(timestamp_ms >= ${now - 30 * DAY_MS}) AS last_30d,
  count() AS total, min(timestamp_ms) AS first_ms, max(timestamp_ms) AS last_ms
FROM ${this.eventsTable}
WHERE account_id = ${accountId}${envFilter(environment)}
GROUP BY event
ORDER BY last_30d DESC, total DESC, event
LIMIT ${DEFINITIONS_LIMIT}`)
  }

  /**
   * Each name's counts from the hourly counts (U19): whole hours from event_counts_hourly FINAL, and the
   * events of the partial hour at each of the 7 and 30 day bounds and of the hours not counted yet (U25:
   * the current hour among them) from `events FINAL`, so exact (a retried insert counts once) and reading
   * one row per name and counted hour.
   */
  private async counts(accountId: string, environment: Environment | undefined, now: number) {
    const [from7, from30] = [now - 7 * DAY_MS, now - 30 * DAY_MS]
    const [whole7, whole30] = [hourCeil(from7), hourCeil(from30)]
    const hour = (ms: number) => sql`toDateTime(${new Date(ms)}, 'UTC')`
    const dirty = await dirtyHours(this.ch, this.database, accountId, 0, END_OF_HOURS_MS)
    const inDirty = raw(hoursCondition(dirty))
    return this.rows<CountRow>(sql`
SELECT event, sum(d7) AS last_7d, sum(d30) AS last_30d, sum(n) AS total, min(f) AS first_ms, max(l) AS last_ms FROM (
  SELECT event, sumIf(events, hour >= ${raw(hour(whole7))}) AS d7, sumIf(events, hour >= ${raw(hour(whole30))}) AS d30,
    sum(events) AS n, min(first_ms) AS f, max(last_ms) AS l
  FROM ${this.countsTable} FINAL
  WHERE account_id = ${accountId}${envFilter(environment)} AND ${raw(notTheseHours(dirty))}
  GROUP BY event
  UNION ALL
  SELECT event, countIf(timestamp_ms >= ${from7} AND (timestamp_ms < ${whole7} OR ${inDirty})) AS d7,
    countIf(timestamp_ms >= ${from30} AND (timestamp_ms < ${whole30} OR ${inDirty})) AS d30, countIf(${inDirty}) AS n,
    min(timestamp_ms) AS f, max(timestamp_ms) AS l
  FROM ${this.eventsTable} FINAL
  WHERE account_id = ${accountId}${envFilter(environment)}
    AND ((timestamp >= ${raw(hour(hourFloor(from7)))} AND timestamp < ${raw(hour(whole7))})
      OR (timestamp >= ${raw(hour(hourFloor(from30)))} AND timestamp < ${raw(hour(whole30))})
      OR ${inDirty})
  GROUP BY event
)
GROUP BY event
ORDER BY last_30d DESC, total DESC, event
LIMIT ${DEFINITIONS_LIMIT}`)
  }

  /** Up to SAMPLE_ROWS rows of each event name among the account's rows matching `where`. */
  private samples(accountId: string, environment: Environment | undefined, where: string) {
    return this.rows<{ event: string; properties: string }>(sql`
SELECT event, properties FROM ${this.eventsTable}
WHERE account_id = ${accountId}${envFilter(environment)} AND (${raw(where)})
LIMIT ${SAMPLE_ROWS} BY event`)
  }

  async traits(accountId: string, environment: Environment | undefined): Promise<TraitDefinition[]> {
    const rows = await this.rows<{
      trait_key: string
      users: string
      first_ms: string
      last_ms: string
      samples: string[]
    }>(sql`
SELECT trait_key, uniqExact(user_id) AS users, min(set_at_ms) AS first_ms, max(set_at_ms) AS last_ms, groupArray(${SAMPLE_ROWS})(value) AS samples
FROM ${this.traitsTable}
WHERE account_id = ${accountId}${envFilter(environment)}
GROUP BY trait_key
ORDER BY users DESC, trait_key
LIMIT ${DEFINITIONS_LIMIT}`)
    return rows.map((r) => {
      const [def] = inferKeys(r.samples.map((v) => ({ [r.trait_key]: parseStored(v) })))
      return {
        ...(def ?? { key: r.trait_key, types: [], seen: 0, examples: [] }),
        users: Number(r.users),
        first_seen: iso(r.first_ms),
        last_seen: iso(r.last_ms),
      }
    })
  }
}
