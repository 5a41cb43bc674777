// The Persons page's list (decision U11 of docs/design.md): the account's users, searched by id,
// email or trait value, paged by user id. One query: the page's user ids are read first from the
// users table, sorted by (account, environment, user); only they are then aggregated, so a page
// costs about the same on a small account and a large one. Ids that identity_links maps to another
// person (an anonymous visitor since identified, an aliased id; H50) are that person, not persons of
// their own. Valid on ClickHouse 18.16 and current (A7). Scoped to the session's account.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, literal, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import { parseJson, type Environment } from './queries.js'

export interface PersonSummary {
  user_id: string
  email: string | null
  first_seen: string
  last_seen: string
  environments: Environment[]
}

export interface PersonsPage {
  persons: PersonSummary[]
  /** The `after` of the next page, or null on the last one. */
  next: string | null
}

/** An identify of a person's history (their user page), as the live feed carries one. */
export interface IdentifyRow {
  type: 'identify'
  event_id: string
  environment: Environment
  user_id: string
  anonymous_id: string
  email: string
  timestamp: string
  received_at: string
  traits: unknown
  context: unknown
}

export interface PersonsFilter {
  /** Matched case-insensitively as a substring of the user id, an email the user had, or a trait value. */
  search?: string
  environment?: Environment
  /** Only user ids sorted after this one (the previous page's `next`). */
  after?: string
  limit: number
}

const iso = (ms: string | number) => new Date(Number(ms)).toISOString()

/** One page's user ids: the filters a single users row can be tested on. */
function pageIds(database: string, accountId: string, f: PersonsFilter): SqlRaw {
  const env = raw(f.environment ? sql` AND environment = ${f.environment}` : '')
  const needle = f.search?.toLowerCase()
  // An email is an aggregate state per row: finalizeAggregation reads the row's own (an email the
  // user had), which is what a search for it means.
  const search = raw(
    needle
      ? sql` AND (position(lower(user_id), ${needle}) > 0 OR position(lower(finalizeAggregation(email_state)), ${needle}) > 0
    OR user_id IN (SELECT user_id FROM ${ident(database, 'user_traits')} WHERE account_id = ${accountId}${env} AND position(lower(value), ${needle}) > 0))`
      : '',
  )
  return raw(sql`SELECT DISTINCT user_id FROM ${ident(database, 'users')}
  WHERE account_id = ${accountId}${env} AND user_id > ${f.after ?? ''}${search}
    AND user_id NOT IN (SELECT anonymous_id FROM ${ident(database, 'identity_links')} WHERE account_id = ${accountId})
  ORDER BY user_id
  LIMIT ${f.limit + 1}`)
}

async function listPersons(ch: ClickHouseClient, database: string, accountId: string, f: PersonsFilter) {
  const env = raw(f.environment ? sql` AND environment = ${f.environment}` : '')
  const rows = await (
    await ch.query({
      query: sql`SELECT user_id, argMaxMerge(email_state) AS email, minMerge(first_seen_state) AS first_ms,
  maxMerge(last_seen_state) AS last_ms, groupUniqArray(toString(environment)) AS environments
FROM ${ident(database, 'users')}
WHERE account_id = ${accountId}${env} AND user_id IN (${pageIds(database, accountId, f)})
GROUP BY user_id
ORDER BY user_id`,
      format: 'JSONEachRow',
    })
  ).json<{ user_id: string; email: string; first_ms: string; last_ms: string; environments: Environment[] }>()
  const more = rows.length > f.limit
  const persons = rows.slice(0, f.limit).map((r) => ({
    user_id: r.user_id,
    email: r.email || null,
    first_seen: iso(r.first_ms),
    last_seen: iso(r.last_ms),
    environments: [...r.environments].sort(),
  }))
  return { persons, next: more ? persons[persons.length - 1]!.user_id : null }
}

/**
 * The latest identifies (and aliases, H50) of these user ids, newest first: with the events, a
 * person's history on their user page (U12). The identifies table is sorted by (account,
 * environment, user, time), so this reads those users' ranges only.
 */
async function identifiesOf(
  ch: ClickHouseClient,
  database: string,
  accountId: string,
  userIds: string[],
  environment: Environment | undefined,
  limit: number,
): Promise<IdentifyRow[]> {
  const env = raw(environment ? sql` AND environment = ${environment}` : '')
  const rows = await (
    await ch.query({
      query: sql`SELECT event_id, environment, user_id, anonymous_id, email, traits, context, timestamp_ms, received_at_ms
FROM ${ident(database, 'identifies')} FINAL
WHERE account_id = ${accountId}${env} AND user_id IN (${raw(userIds.map((id) => literal(id)).join(', '))})
ORDER BY timestamp_ms DESC, event_id DESC
LIMIT ${limit}`,
      format: 'JSONEachRow',
    })
  ).json<Record<string, string>>()
  return rows.map((r) => ({
    type: 'identify',
    event_id: r.event_id!,
    environment: r.environment as Environment,
    user_id: r.user_id!,
    anonymous_id: r.anonymous_id!,
    email: r.email!,
    timestamp: iso(r.timestamp_ms!),
    received_at: iso(r.received_at_ms!),
    traits: parseJson(r.traits!),
    context: parseJson(r.context!),
  }))
}

/** The Persons reads of one database; a function of the client, as clients are passed in. */
export function personQueries(ch: ClickHouseClient, database: string) {
  return {
    list: (accountId: string, f: PersonsFilter): Promise<PersonsPage> => listPersons(ch, database, accountId, f),
    identifies: (accountId: string, userIds: string[], environment: Environment | undefined, limit: number) =>
      identifiesOf(ch, database, accountId, userIds, environment, limit),
  }
}

export type PersonQueries = ReturnType<typeof personQueries>
