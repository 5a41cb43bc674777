// Purging people's rows from the projections (A12). Every table of the database with both an
// account_id and a user_id column holds rows of a person (events, identifies, users, user_traits
// today, and any table added later), so the tables are found, not listed. usage_monthly_sharded and
// retry_ids hold event ids and counts, not identities, and are kept: billing stays exact.
//
// A table with an account_id and a `body` but no user_id (refused_samples, H57) keeps the text of
// refused requests, which may name the person anywhere in it or not be JSON at all: the person's
// rows there are the account's bodies holding the user id as text, raw or JSON-escaped (U21). This
// may delete another person's sample whose body holds the same text; samples are diagnostics only.
//
// `ALTER TABLE ... DELETE` is a mutation, which ClickHouse 18.16 has and current releases keep (as
// the test-row retention does, H35); it rewrites the parts, so the rows are gone for every query,
// FINAL or not, once system.mutations says it is done. A row inserted while the mutation ran is not
// in the parts it rewrote: the purge counts afterwards and deletes again until nothing is left.
//
// On a cluster (H61) it deletes and checks on every replica: clickhouse/mutation-places.ts.
import type { ClickHouseClient } from '@clickhouse/client'
import { setTimeout } from 'node:timers/promises'
import { raw, sql } from '../../../../schemas/clickhouse/sql.js'
import {
  mutationPlaces,
  mutationsDone,
  type ClusterAccess,
  type MutationPlaces,
} from '../clickhouse/mutation-places.js'
import { AppError } from '../../../shared/src/errors.js'
import { queryRows } from '../../../shared/src/clickhouse.js'
import { forgetCountedHours, peopleHours } from './purge-counts.js'

export type { ClusterAccess }

export interface Person {
  account_id: string
  user_id: string
}

/** A table holding a person's rows, and how they are found in it. */
type PersonTable = { table: string; holds: 'user_id' | 'body' }

/** The rows of a table of any of `people`: per account, the user ids in one list (an erasure batch is
 *  mostly one account's), or the bodies holding any of them as text. */
function ofPeople(people: readonly Person[], holds: PersonTable['holds']) {
  const byAccount = new Map<string, string[]>()
  for (const p of people) {
    const users = byAccount.get(p.account_id)
    if (users === undefined) byAccount.set(p.account_id, [p.user_id])
    else users.push(p.user_id)
  }
  const each = [...byAccount].map(([account, users]) => {
    if (holds === 'user_id')
      return sql`(account_id = ${account} AND user_id IN (${raw(users.map((u) => sql`${u}`).join(', '))}))`
    const texts = users.flatMap((u) => [u, JSON.stringify(u).slice(1, -1)])
    return sql`(account_id = ${account} AND (${raw(texts.map((x) => sql`position(body, ${x}) > 0`).join(' OR '))}))`
  })
  return raw(each.join(' OR '))
}

/** The text a statement may spend naming people: a quarter of ClickHouse's default max_query_size (256 KiB,
 *  18.16's too), so the statement around it always fits. */
export const PEOPLE_TEXT_BYTES = 64 * 1024

/**
 * `people` in groups each named within `budget` bytes of statement text, in order (A31). A person costs
 * their id as a literal twice (raw and JSON-escaped, as `refused_samples` is searched) and the SQL around:
 * the erasure worker's 200 ids of 255 characters that each need escaping would not fit one statement.
 */
export function statementGroups(people: readonly Person[], budget = PEOPLE_TEXT_BYTES): Person[][] {
  const groups: Person[][] = []
  let group: Person[] = []
  let used = 0
  for (const p of people) {
    const cost =
      Buffer.byteLength(sql`${p.user_id}`) + Buffer.byteLength(sql`${JSON.stringify(p.user_id).slice(1, -1)}`) + 64
    if (group.length > 0 && used + cost > budget) {
      groups.push(group)
      group = []
      used = 0
    }
    group.push(p)
    used += cost
  }
  if (group.length > 0) groups.push(group)
  return groups
}

export interface PurgeOptions {
  /** Rounds of delete-and-count before giving up (rows kept arriving). */
  rounds?: number
  /** ms between looks at system.mutations and at running recounts. */
  pollMs?: number
  /** The database is on this cluster (CLICKHOUSE_CLUSTER): purge and check every server of it. */
  cluster?: ClusterAccess
  /** How long a recount statement running when the counts are deleted is waited for (purge-counts.ts). */
  recountWaitMs?: number
  /** The longest a wait for the database's mutations lasts before the purge gives up (MUTATION_WAIT_MS;
   *  the config's default without it). */
  mutationWaitMs?: number
  /** Ends a wait before the deletes early: the purge then rejects with the signal's reason (a stopping
   *  worker). Once it has deleted, it forgets the counted hours whatever the signal says. */
  signal?: AbortSignal
}

export interface PurgeResult {
  tables: string[]
  /** Rows found per table before the first delete. */
  found: Record<string, number>
  rounds: number
}

export class PurgeIncompleteError extends AppError {
  readonly code = 'PURGE_INCOMPLETE'
  constructor(readonly left: Record<string, number>) {
    super(`rows of the people erased are still stored after the purge: ${JSON.stringify(left)}`, { retriable: true })
  }
}

/** The tables (not views) of `database` that hold a person's rows: by user_id, or in a body's text. */
export async function personTables(ch: ClickHouseClient, database: string): Promise<PersonTable[]> {
  const rows = await queryRows<{ table: string; by_user: number }>(
    ch,
    sql`
    SELECT c.table AS table, max(c.name = 'user_id') AS by_user FROM system.columns AS c
    WHERE c.database = ${database} AND c.name IN ('account_id', 'user_id', 'body')
      AND c.table IN (SELECT name FROM system.tables WHERE database = ${database} AND engine LIKE '%MergeTree')
    GROUP BY c.table HAVING max(c.name = 'account_id') = 1 AND count() >= 2 ORDER BY c.table`,
  )
  return rows.map((r) => ({ table: r.table, holds: Number(r.by_user) === 1 ? 'user_id' : 'body' }))
}

/**
 * Deletes every row of `people` from every person table of `database` and waits until none is left. One
 * statement a table for them all: a mutation's cost is the parts it rewrites, not the people it names, so
 * a batch of erasures costs about what one does (the erasure worker's batches, A31).
 */
export async function purgePeople(
  ch: ClickHouseClient,
  database: string,
  people: readonly Person[],
  opts: PurgeOptions = {},
): Promise<PurgeResult> {
  const tables = await personTables(ch, database)
  const holds = new Map(tables.map((t) => [t.table, t.holds]))
  const where = await mutationPlaces(ch, database, opts.cluster)
  // One statement a table, unless the people's ids are too long to name in one (statementGroups).
  const groups = statementGroups(people)
  let left = await countRows(ch, where, database, tables, groups)
  const found = { ...left }
  // H85: bounded. `only` the person tables: ClickHouse applies a table's mutations in order, so one that
  // never ends holds its own table's, and one of another table must not hold an erasure.
  const settled = (only?: readonly string[], signal?: AbortSignal) =>
    mutationsDone(ch, where, database, { timeoutMs: opts.mutationWaitMs, pollMs: opts.pollMs ?? 100, signal }, only)
  const personTablesSettled = () =>
    settled(
      tables.map((t) => t.table),
      opts.signal,
    )
  // U26: the counted hours are forgotten after the events are deleted (purge-counts.ts says why the
  // order), and also when this attempt gives up after deleting: the retry forgets the hours of what it
  // finds left.
  const hours =
    (left.events ?? 0) > 0
      ? await peopleHours(
          ch,
          database,
          groups.map((g) => ofPeople(g, 'user_id')),
          where,
        )
      : new Map<string, number[]>()
  let rounds = 0
  let deleted = false
  try {
    while (Object.values(left).some((n) => n > 0)) {
      if (rounds === (opts.rounds ?? 5)) throw new PurgeIncompleteError(left)
      rounds++
      // Not behind a mutation still pending: one that never ends would hold these deletes too, and every
      // retry of the erasure would queue more behind it. The attempt gives up here instead, naming it.
      await personTablesSettled()
      for (const [table, n] of Object.entries(left)) {
        if (n === 0) continue
        for (const group of groups) {
          const rows = ofPeople(group, holds.get(table) ?? 'user_id')
          deleted = true
          await ch.command({ query: sql`${where.alter(table)} DELETE WHERE ${rows}` })
        }
      }
      await personTablesSettled()
      left = await countRows(ch, where, database, tables, groups)
    }
  } finally {
    // Not ended by the signal: once rows are deleted their counted hours must go too, and a retry that
    // finds no row left would not know them. Bounded by the waits' own limits.
    for (const [accountId, accountHours] of deleted ? hours : [])
      await forgetCountedHours(ch, database, accountId, accountHours, where, () => settled(), {
        sleep: (ms) => setTimeout(ms),
        pollMs: opts.pollMs ?? 100,
        timeoutMs: opts.recountWaitMs ?? 120_000,
      })
  }
  return { tables: tables.map((t) => t.table), found, rounds }
}

async function countRows(
  ch: ClickHouseClient,
  where: MutationPlaces,
  database: string,
  tables: PersonTable[],
  groups: readonly Person[][],
): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const { table, holds } of tables) {
    out[table] = 0
    for (const group of groups) {
      const [row] = await queryRows<{ n: string }>(
        ch,
        sql`SELECT count() AS n FROM ${where.read(database, table)} WHERE ${ofPeople(group, holds)}`,
      )
      out[table] += Number(row?.n ?? 0)
    }
  }
  return out
}
