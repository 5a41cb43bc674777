// An erasure (A12) and the counts tables (U26): property_counts_hourly counts property values, which may
// name the person, per hour together with everyone's events, so no row is the person's alone and none can
// be found by a user_id. The hours the person's events fall in are read before the events are deleted;
// once the events are gone, those hours' rows of the counts tables are deleted (a recount never lowers a
// count, U19) and, after that deletion is done, the hours are marked dirty: readers then read them from
// the events (U25), and the recount counts them again from the events left. In that order, a recount
// starting meanwhile counts either an hour still counted (before the mark, nothing to do) or the events
// without the person (after the deletion). A recount statement already running when the events were
// deleted is another matter: it read them with the person and may write after the deletion, and its rows
// (a day of person_counts_daily holding the user id, a value only the person sent) would stay for good,
// since no later recount writes their key again. So before a table's buckets are deleted, every recount
// statement running then is waited for (recountsEnded, A28); the tables whose recount reads another
// counts table (property_counts_daily sums property_counts_hourly, U29) are deleted in a second stage,
// after the tables they read and a second wait. The recount of the dirty hours sums each day again from
// the hours left.
import type { ClickHouseClient } from '@clickhouse/client'
import { ident, raw, sql, type SqlRaw } from '../../../../schemas/clickhouse/sql.js'
import { HOUR_OF_TIMESTAMP } from '../../../shared/src/rollup/event-counts.js'
import { insertMarks } from '../../../shared/src/rollup/dirty-hours.js'
import { AppError } from '../../../shared/src/errors.js'
import { COUNTS_TABLES } from '../../../shared/src/rollup/counts-tables.js'
import type { MutationPlaces } from '../clickhouse/mutation-places.js'

/** The hours (UTC, epoch seconds) the people's events fall in, by account: one query a condition naming
 *  some of them (purge.ts's, one a statement group). */
export async function peopleHours(
  ch: ClickHouseClient,
  database: string,
  people: readonly SqlRaw[],
  where: MutationPlaces,
): Promise<Map<string, number[]>> {
  const byAccount = new Map<string, Set<number>>()
  for (const rows of people) {
    const r = await ch.query({
      query: sql`SELECT DISTINCT account_id AS a, toUInt32(${raw(HOUR_OF_TIMESTAMP)}) AS h
FROM ${where.read(database, 'events')} WHERE ${rows}`,
      format: 'JSONEachRow',
    })
    for (const x of await r.json<{ a: string; h: string | number }>()) {
      const hours = byAccount.get(x.a)
      if (hours === undefined) byAccount.set(x.a, new Set([Number(x.h)]))
      else hours.add(Number(x.h))
    }
  }
  return new Map([...byAccount].map(([account, hours]) => [account, [...hours].sort((a, b) => a - b)]))
}

/** A recount statement still ran when the purge gave up waiting for it (retried with the erasure). */
export class RecountStillRunningError extends AppError {
  readonly code = 'RECOUNT_STILL_RUNNING'
  constructor(readonly queryIds: string[]) {
    super(`recount statements still running after the wait: ${queryIds.join(', ')}`, { retriable: true })
  }
}

export interface RecountWait {
  sleep: (ms: number) => Promise<void>
  pollMs: number
  /** How long a statement running at the start may take before the purge gives up (and is retried). */
  timeoutMs: number
}

/** The ids of the statements writing any counts table of `database` now, on every server of `where`. */
async function recountsRunning(ch: ClickHouseClient, database: string, where: MutationPlaces): Promise<string[]> {
  // The text searched for is built by concat so that this query's own text does not hold it.
  const writes = COUNTS_TABLES.map(
    (c) => sql`position(query, concat('INSERT INTO ', ${ident(database, c.table).text})) > 0`,
  )
  const r = await ch.query({
    query: sql`SELECT query_id FROM ${where.read('system', 'processes')} WHERE ${raw(writes.join(' OR '))}`,
    format: 'JSONEachRow',
  })
  return (await r.json<{ query_id: string }>()).map((x) => x.query_id)
}

/** Waits until every statement writing a counts table that runs now has ended. */
export async function recountsEnded(
  ch: ClickHouseClient,
  database: string,
  where: MutationPlaces,
  wait: RecountWait,
): Promise<void> {
  const running = new Set(await recountsRunning(ch, database, where))
  const t0 = Date.now()
  while (running.size > 0) {
    if (Date.now() - t0 > wait.timeoutMs) throw new RecountStillRunningError([...running])
    await wait.sleep(wait.pollMs)
    const now = new Set(await recountsRunning(ch, database, where))
    for (const id of running) if (!now.has(id)) running.delete(id)
  }
}

/**
 * Deletes the hours' counted rows, the tables read from the events first and those read from other counts
 * tables after them, each stage once the recounts running at its start have ended and waited until done;
 * then marks the hours dirty.
 */
export async function forgetCountedHours(
  ch: ClickHouseClient,
  database: string,
  accountId: string,
  hours: readonly number[],
  where: MutationPlaces,
  settled: () => Promise<void>,
  wait: RecountWait,
): Promise<void> {
  if (hours.length === 0) return
  const stages = [COUNTS_TABLES.filter((c) => c.reads === 'events'), COUNTS_TABLES.filter((c) => c.reads !== 'events')]
  for (const stage of stages) {
    await recountsEnded(ch, database, where, wait)
    for (const c of stage) {
      // The buckets (hours, days) the hours fall in.
      const buckets = [...new Set(hours.map((h) => h - (h % c.seconds)))]
      const rows = raw(`toUInt32(${c.column}) IN (${buckets.join(', ')})`)
      await ch.command({ query: sql`${where.alter(c.table)} DELETE WHERE account_id = ${accountId} AND ${rows}` })
    }
    await settled()
  }
  const marks = hours.map((h) => ({ accountId, hourMs: h * 1000 }))
  await insertMarks(ch, database, marks, { markedMs: Date.now(), dirty: true })
}
