// The writer keeps the hourly counts (U19 of docs/design.md) exact: after each batch the hours its events
// fall in are recomputed from `events FINAL`, so a batch written again (at least once, A1) counts once,
// an event late into an hour already counted is added, and a retry whose events were stored before the
// failure still gets its hours counted.
import t from 'tap'
import { ClickHouseWriter } from './writer.js'
import { createTestDatabase, makeEvent, queryRows } from '../../../../test/support/clickhouse-helpers.js'

const db = await createTestDatabase({ prefix: 'evcounts', t })
const writer = new ClickHouseWriter(db.client, db.database, { hourlyCounts: true })
const H = 3_600_000
const T0 = Date.UTC(2024, 4, 10, 8)

const counts = () =>
  queryRows<{ event: string; hour: string; events: string; first_ms: string; last_ms: string }>(
    db.client,
    `SELECT event, toString(hour) AS hour, events, first_ms, last_ms FROM ${db.database}.event_counts_hourly FINAL
     ORDER BY hour, event`,
  )

t.test('a batch, the same batch again, a late event', async (t) => {
  const batch = [
    makeEvent({ event: 'signup', timestamp: T0 + 1 }),
    makeEvent({ event: 'signup', timestamp: T0 + H - 1 }),
    makeEvent({ event: 'page', timestamp: T0 + 2 * H + 5 }),
  ]
  await writer.write({ events: batch, identifies: [] })
  await writer.write({ events: batch, identifies: [] })
  t.same(await counts(), [
    {
      event: 'signup',
      hour: '2024-05-10 08:00:00',
      events: '2',
      first_ms: String(T0 + 1),
      last_ms: String(T0 + H - 1),
    },
    {
      event: 'page',
      hour: '2024-05-10 10:00:00',
      events: '1',
      first_ms: String(T0 + 2 * H + 5),
      last_ms: String(T0 + 2 * H + 5),
    },
  ])
  await writer.write({ events: [makeEvent({ event: 'signup', timestamp: T0 + 30 })], identifies: [] })
  t.equal(Number((await counts())[0]!.events), 3, 'the late event is counted in its hour')
})

t.test('events stored by a write that failed before counting are counted by its retry', async (t) => {
  const e = makeEvent({ event: 'refund', timestamp: T0 + 5 * H })
  await db.client.insert({
    table: `${db.database}.events`,
    values: [
      {
        event_id: e.event_id,
        account_id: e.account_id,
        environment: 'live',
        event: 'refund',
        timestamp: Math.floor(e.timestamp / 1000),
        timestamp_ms: e.timestamp,
        message_id: e.message_id ?? '',
      },
    ],
    format: 'JSONEachRow',
  })
  await writer.write({ events: [e], identifies: [] })
  t.match(await counts(), [{}, {}, { event: 'refund', events: '1' }])
})
