// The rows of one account with the person each belongs to, for the reads that count persons across
// the anonymous -> known switch (Funnels U15, Retention U18 of docs/design.md): its events, or the
// weeks its ids were seen in (person_weeks, U23). An id's person is the user_id of its latest link, an
// id with no link is its own person (H50, as the events_by_person view of migration 008), with the
// account and time range applied to both sides of the join, so only that account's links are
// aggregated (the view maps every account's first). A person is a `cityHash64` of its user_id (U23):
// grouping and joining 64-bit numbers rather than strings was most of what was left of the reads' cost.
// ANY LEFT JOIN ... USING, argMax and cityHash64 are valid on ClickHouse 18.16 and current (A9, A10);
// an unmatched row gets 0 (join_use_nulls is off on both), hence the if(). The links are aggregated a
// level down, as identity_map does: an alias `user_id` beside argMax(user_id) would be read by the argMax.
import { ident, sql, raw, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import type { Environment } from './queries.js'

export interface PersonEventsScope {
  accountId: string
  environment?: Environment
  /** Events at or after this time; none: from the account's first event. */
  from?: Date
  to: Date
  /** Only these event names; none: every event. */
  events?: string[]
}

const envSql = (environment?: Environment) => (environment ? sql` AND environment = ${environment}` : '')
const eventsSql = (events?: string[]) =>
  events?.length ? ` AND event IN (${events.map((e) => sql`${e}`).join(', ')})` : ''

/**
 * `rows` (a SELECT of `environment`, `uh` = cityHash64(user_id) and `columns`) with each row's person
 * as a UInt64: the hash of the user_id its id is linked to last, else its own.
 */
function withPerson(
  database: string,
  accountId: string,
  environment: Environment | undefined,
  rows: string,
  columns: string,
): SqlRaw {
  return raw(sql`(
    SELECT if(mapped = 0, uh, mapped) AS person, ${raw(columns)}
    FROM (${raw(rows)}) AS e
    ANY LEFT JOIN (
      SELECT environment, cityHash64(id) AS uh, cityHash64(person_id) AS mapped
      FROM (
        SELECT environment, anonymous_id AS id, argMax(user_id, linked_at_ms) AS person_id
        FROM ${ident(database, 'identity_links')}
        WHERE account_id = ${accountId}${raw(envSql(environment))}
        GROUP BY environment, anonymous_id
      )
    ) AS mapped USING (environment, uh)
  )`)
}

/**
 * A subquery of (person, timestamp_ms, and each of `columns` by its name, a plain identifier): the account's events in the
 * scope that match at least one of the `columns` (conditions, UInt8), each with its person. Computed
 * before the join, so no wide column (properties) goes through it, and a row matching none, which
 * changes no windowFunnel level, is left out. Read without FINAL: a retried insert's duplicate row
 * changes no windowFunnel level, and merging at read time was most of the cost (U15).
 */
export function personEventsSql(
  database: string,
  s: PersonEventsScope,
  columns: Record<string, string>,
  { onlyMatching }: { onlyMatching: boolean },
): SqlRaw {
  const names = Object.keys(columns)
  const selected = Object.entries(columns).map(([n, expr]) => `(${expr}) AS ${n}`)
  const where =
    sql`account_id = ${s.accountId}${raw(envSql(s.environment))} AND timestamp < toDateTime(${s.to}, 'UTC')` +
    (s.from ? sql` AND timestamp >= toDateTime(${s.from}, 'UTC')` : '') +
    eventsSql(s.events) +
    (onlyMatching ? ` AND (${names.join(' OR ')})` : '')
  const rows = `SELECT environment, cityHash64(user_id) AS uh, timestamp_ms, ${selected.join(', ')} FROM ${ident(database, 'events')} WHERE ${where}`
  return withPerson(database, s.accountId, s.environment, rows, `timestamp_ms, ${names.join(', ')}`)
}

/**
 * A subquery of (person, event, t): the weeks (t, the Monday's epoch second) each person was seen in
 * per event name, event '' standing for any event (person_weeks, migration 013, U23), for the weeks
 * starting before `to`. A set: a row twice changes no minimum nor set of weeks, so no FINAL.
 */
export function personWeeksSql(database: string, s: Omit<PersonEventsScope, 'from' | 'properties'>): SqlRaw {
  const where =
    sql`account_id = ${s.accountId}${raw(envSql(s.environment))} AND week < toDateTime(${s.to}, 'UTC')` +
    eventsSql(s.events)
  const rows = `SELECT environment, cityHash64(user_id) AS uh, event, toUInt32(week) AS t FROM ${ident(database, 'person_weeks')} WHERE ${where}`
  return withPerson(database, s.accountId, s.environment, rows, 'event, t')
}
