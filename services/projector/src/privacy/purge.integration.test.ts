// The erasure purge of a batch of people (A31): one statement a table names them all, each by account and
// user id, so the same user id in another account is kept, and ids that need escaping match.
import t from 'tap'
import { createTestDatabase, queryRows } from '../../../../test/support/clickhouse-helpers.js'
import { purgePeople, statementGroups } from './purge.js'

t.test(
  'people of several accounts purged at once: each account its own users, the same id elsewhere kept',
  async (t) => {
    const { client, database } = await createTestDatabase({ prefix: 'purge_people', t })
    const now = Date.now()
    const event = (account_id: string, user_id: string, i: number) => ({
      event_id: `${account_id}-${user_id}-${i}`,
      account_id,
      environment: 'live',
      event: 'opened',
      user_id,
      timestamp: now - i * 1000,
      received_at: now,
    })
    const rows = [
      event('acc_a', 'u1', 1),
      event('acc_a', "o'brien", 2),
      event('acc_a', 'u3', 3),
      event('acc_b', 'u1', 4),
      event('acc_b', 'u2', 5),
    ]
    await client.insert({ table: `${database}.events`, values: rows, format: 'JSONEachRow' })
    const erased = [
      { account_id: 'acc_a', user_id: 'u1' },
      { account_id: 'acc_a', user_id: "o'brien" },
      { account_id: 'acc_b', user_id: 'u2' },
    ]
    const result = await purgePeople(client, database, erased, { pollMs: 50 })
    t.equal(result.found.events, 3, 'the three people’s rows, counted together')
    const left = await queryRows<{ account_id: string; user_id: string }>(
      client,
      `SELECT account_id, user_id FROM ${database}.events FINAL ORDER BY account_id, user_id`,
    )
    t.same(left, [
      { account_id: 'acc_a', user_id: 'u3' },
      { account_id: 'acc_b', user_id: 'u1' },
    ])
  },
)

t.test('ids too long to name in one statement are purged in several (statementGroups)', async (t) => {
  const { client, database } = await createTestDatabase({ prefix: 'purge_long', t })
  const now = Date.now()
  // 255 characters (the longest id an erasure takes), each escaped in SQL and again in JSON.
  const ids = Array.from({ length: 100 }, (_, i) => `${'\u0001'.repeat(250)}${String(i).padStart(5, '0')}`)
  const rows = [...ids, 'kept'].map((user_id, i) => ({
    event_id: `long-${i}`,
    account_id: 'acc_long',
    environment: 'live',
    event: 'opened',
    user_id,
    timestamp: now,
    received_at: now,
  }))
  await client.insert({ table: `${database}.events`, values: rows, format: 'JSONEachRow' })
  const people = ids.map((user_id) => ({ account_id: 'acc_long', user_id }))
  t.ok(statementGroups(people).length > 1, 'more than one statement is needed')
  const result = await purgePeople(client, database, people, { pollMs: 50 })
  t.equal(result.found.events, 100)
  t.same(await queryRows(client, `SELECT user_id FROM ${database}.events FINAL`), [{ user_id: 'kept' }])
})
