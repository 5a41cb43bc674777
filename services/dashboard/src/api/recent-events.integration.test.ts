// The Explorer's and the user page's recent events read without FINAL (queries.ts): on a table whose
// duplicates are not merged yet (a retried insert, a replay into the live tables), each event is
// listed once, in its latest received version, newest first, and the answer is the one the plain
// `FINAL` query (the reference) gives.
import t from 'tap'
import { createTestDatabase } from '../../../../test/support/clickhouse-helpers.js'
import { eventRow } from '../../../../test/support/event-rows.js'
import { DashboardQueries } from './queries.js'

const T0 = Date.UTC(2024, 4, 13, 12)

t.test('recent events list each event once, as FINAL does, with duplicates not yet merged', async (t) => {
  const db = await createTestDatabase({ prefix: 'recent', t })
  const row = (i: number, user: string, receivedDelay: number, version: string) => {
    const ms = T0 + i * 1000 + 7
    return eventRow({
      event_id: `e${i}`,
      account_id: i === 9 ? 'acc_b' : 'acc_a',
      environment: i % 4 === 0 ? 'test' : 'live',
      event: `name_${i % 3}`,
      user_id: user,
      ms,
      receivedMs: ms + receivedDelay,
      properties: { version },
    })
  }
  const first = Array.from({ length: 10 }, (_, i) => row(i, i % 2 ? 'u_odd' : 'u_even', 10, 'first'))
  // Three separate inserts (three parts): the same events again, later received, twice for some.
  const again = first
    .filter((_, i) => i % 3 === 0)
    .map((r, k) => row(Number(r.event_id.slice(1)), r.user_id, 500 + k, 'retried'))
  const third = first
    .filter((_, i) => i % 6 === 0)
    .map((r) => row(Number(r.event_id.slice(1)), r.user_id, 900, 'third'))
  for (const values of [first, again, third])
    await db.client.insert({ table: `${db.database}.events`, values, format: 'JSONEachRow' })

  const q = new DashboardQueries(db.client, db.database)
  const reference = async (where: string, limit: number) =>
    (
      await (
        await db.client.query({
          query: `SELECT event_id, JSONExtractString(properties, 'version') AS version FROM ${db.database}.events FINAL
WHERE account_id = 'acc_a'${where} ORDER BY timestamp_ms DESC, event_id LIMIT ${limit}`,
          format: 'JSONEachRow',
        })
      ).json<{ event_id: string; version: string }>()
    ).map((r) => `${r.event_id}:${r.version}`)
  const seen = async (f: Partial<Parameters<DashboardQueries['recentEvents']>[1]>, limit: number) =>
    (await q.recentEvents('acc_a', { from: new Date(T0 - 60_000), to: new Date(T0 + 60_000), limit, ...f })).map(
      (e) => `${e.event_id}:${(e.properties as { version: string }).version}`,
    )

  const all = await seen({}, 100)
  t.same(all, [
    'e8:first',
    'e7:first',
    'e6:third',
    'e5:first',
    'e4:first',
    'e3:retried',
    'e2:first',
    'e1:first',
    'e0:third',
  ])
  t.same(all, await reference('', 100), 'the FINAL reference agrees')
  t.same(await seen({}, 4), await reference('', 4), 'a limit counts each event once')
  t.same(await seen({ userIds: ['u_even'] }, 3), await reference(" AND user_id = 'u_even'", 3), 'one user')
  t.same(
    await seen({ environment: 'live', eventContains: 'name_0' }, 100),
    await reference(" AND environment = 'live' AND position(event, 'name_0') > 0", 100),
    'filters',
  )
})
