// The events of one account with the person each belongs to, for the reads that count persons across
// the anonymous -> known switch (Funnels U15, Retention U18 of docs/design.md). It is what the
// events_by_person view of migration 008 gives (H50: an id's person is the user_id of its latest
// link, an id with no link is its own person), with the account and time range applied to both sides
// of the join, so only that account's links are aggregated (the view maps every account's first).
// ANY LEFT JOIN ... USING and argMax are valid on ClickHouse 18.16 and current (A9, A10); an unmatched
// row gets '' (join_use_nulls is off on both), hence the if(). The links are aggregated a level down,
// as identity_map does: an alias `user_id` beside argMax(user_id) would be read by the argMax.
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
  /** Whether the properties column is read (a property filter needs it; it is the widest column). */
  properties?: boolean
}

/**
 * A subquery of (person, event, timestamp, timestamp_ms[, properties]): the account's events in the
 * scope, each with its person. Read without FINAL: a retried insert's duplicate row changes none of
 * the aggregates read over it (a windowFunnel level, a minimum, a set of weeks, distinct persons), and
 * merging at read time was most of the cost (U15).
 */
export function personEventsSql(database: string, s: PersonEventsScope): SqlRaw {
  const props = s.properties ? ', properties' : ''
  const env = s.environment ? sql` AND environment = ${s.environment}` : ''
  const where =
    sql`account_id = ${s.accountId}${raw(env)} AND timestamp < toDateTime(${s.to}, 'UTC')` +
    (s.from ? sql` AND timestamp >= toDateTime(${s.from}, 'UTC')` : '') +
    (s.events?.length ? ` AND event IN (${s.events.map((e) => sql`${e}`).join(', ')})` : '')
  return raw(sql`(
    SELECT if(mapped_person_id = '', user_id, mapped_person_id) AS person, event, timestamp, timestamp_ms${raw(props)}
    FROM (
      SELECT environment, user_id, event, timestamp, timestamp_ms${raw(props)}
      FROM ${ident(database, 'events')}
      WHERE ${raw(where)}
    ) AS e
    ANY LEFT JOIN (
      SELECT environment, id AS user_id, person_id AS mapped_person_id
      FROM (
        SELECT environment, anonymous_id AS id, argMax(user_id, linked_at_ms) AS person_id
        FROM ${ident(database, 'identity_links')}
        WHERE account_id = ${s.accountId}${raw(env)}
        GROUP BY environment, anonymous_id
      )
    ) AS mapped USING (environment, user_id)
  )`)
}
