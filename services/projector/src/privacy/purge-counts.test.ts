// The purge's wait for the recount statements running when it deletes the counts (A28), against a stand-in
// for system.processes: it waits while a statement seen at its start runs, ignores those that start later,
// and gives up with a retriable error after its bound.
import t from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import { raw } from '../../../../schemas/clickhouse/sql.js'
import { isRetriable } from '../../../shared/src/errors.js'
import { RecountStillRunningError, recountsEnded } from './purge-counts.js'

/** A client whose system.processes answers the next list of query ids at each read (the last one after). */
function processes(lists: string[][]) {
  const asked: string[] = []
  let i = 0
  const ch = {
    query: async ({ query }: { query: string }) => {
      asked.push(query)
      const ids = lists[Math.min(i++, lists.length - 1)]!
      return { json: async () => ids.map((query_id) => ({ query_id })) }
    },
  } as unknown as ClickHouseClient
  return { ch, asked }
}

const where = {
  alter: (table: string) => raw(`ALTER TABLE db.${table}`),
  read: (db: string, table: string) => raw(`${db}.${table}`),
}
const wait = (timeoutMs: number) => ({ sleep: async () => {}, pollMs: 1, timeoutMs })

t.test('waits until the statements running at its start have ended, not for later ones', async (t) => {
  const { ch, asked } = processes([['a', 'b'], ['b', 'c'], ['c'], ['c']])
  await recountsEnded(ch, 'db', where, wait(60_000))
  t.equal(asked.length, 3, 'read again until neither a nor b runs; c started after')
  t.match(asked[0], 'FROM system.processes')
  t.match(asked[0], "concat('INSERT INTO ', 'db.person_counts_daily')")
})

t.test('nothing running: one read', async (t) => {
  const { ch, asked } = processes([[]])
  await recountsEnded(ch, 'db', where, wait(60_000))
  t.equal(asked.length, 1)
})

t.test('a statement that outlasts the bound: RECOUNT_STILL_RUNNING, retriable', async (t) => {
  const { ch } = processes([['a']])
  const err = await recountsEnded(ch, 'db', where, wait(-1)).catch((e: unknown) => e)
  t.ok(err instanceof RecountStillRunningError)
  t.match(err, { code: 'RECOUNT_STILL_RUNNING', queryIds: ['a'] })
  t.ok(isRetriable(err), 'the erasure is tried again')
})
