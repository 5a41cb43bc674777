// The erasure purge of a batch of people (A31): one statement a table names them all, each by account and
// user id, so the same user id in another account is kept, and ids that need escaping match.
import t from 'tap'
import { createTestDatabase, queryRows } from '../../../../test/support/clickhouse-helpers.js'
import { purgePeople } from './purge.js'

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
