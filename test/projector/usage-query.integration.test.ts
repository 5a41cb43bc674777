// Usage counters against the real ClickHouse: exact under replay, by month of receipt
// (H5), live and test apart (H6), emails zero (U2).
import t from 'tap'
import { ClickHouseWriter } from '../../services/projector/src/clickhouse/writer.js'
import { createTestDatabase, makeEvent } from '../support/clickhouse-helpers.js'
import { accountUsage, monthlyLiveUsage } from '../../services/shared/src/usage/usage-query.js'

const db = await createTestDatabase({ prefix: 'usage', t })
const { client, database } = db
const writer = new ClickHouseWriter(client, database)

const june = Date.UTC(2024, 5, 10, 8, 0, 0, 0)
const julyFirst = Date.UTC(2024, 6, 1, 0, 0, 0, 0)

const batch = [
  ...Array.from({ length: 250 }, (_, i) =>
    makeEvent({ account_id: 'acc_a', timestamp: june + i, received_at: june + i + 1 }),
  ),
  ...Array.from({ length: 40 }, (_, i) =>
    makeEvent({ account_id: 'acc_a', environment: 'test', timestamp: june + i, received_at: june + i + 1 }),
  ),
  ...Array.from({ length: 7 }, (_, i) =>
    makeEvent({ account_id: 'acc_b', timestamp: june + i, received_at: june + i + 1 }),
  ),
  // A bulk import of an old event counts in the month it was received (H5).
  makeEvent({ account_id: 'acc_b', timestamp: Date.UTC(2023, 0, 1), received_at: june }),
  // Received on the first ms of July: July's usage.
  makeEvent({ account_id: 'acc_b', timestamp: julyFirst - 1, received_at: julyFirst }),
]

t.test('replayed records are counted once', async (t) => {
  await writer.write({ events: batch, identifies: [] })
  // Replay in smaller, reordered batches, as a restarted consumer would.
  const reversed = [...batch].reverse()
  for (let i = 0; i < reversed.length; i += 64) {
    await writer.write({ events: reversed.slice(i, i + 64), identifies: [] })
  }
  await writer.write({ events: batch, identifies: [] })

  const june2024 = await monthlyLiveUsage(client, database, '2024-06')
  t.same(Object.fromEntries(june2024), { acc_a: 250, acc_b: 8 })
  t.same(Object.fromEntries(await monthlyLiveUsage(client, database, '2024-07')), { acc_b: 1 })
  t.same(Object.fromEntries(await monthlyLiveUsage(client, database, '2023-01')), {}, 'not by event time')
  t.same(await accountUsage(client, database, 'acc_a', '2024-06'), { live: 250, test: 40, emails: 0 })
  t.same(await accountUsage(client, database, 'acc_b', '2024-06'), { live: 8, test: 0, emails: 0 })
  t.same(
    await accountUsage(client, database, "acc_a' OR '1'='1", '2024-06'),
    { live: 0, test: 0, emails: 0 },
    'bound safely',
  )
})
