// The erasure purge and the counts tables (U26, U29, U33): a property value only the erased person sent is gone
// from property_counts_hourly and property_counts_daily once the recount has run, the hours stay exact meanwhile (read from the
// events), and the other persons' counts of those hours are counted again; the person's daily counts
// (person_counts_daily) are gone at once and are not counted again.
import t from 'tap'
import type { ClickHouseClient } from '@clickhouse/client'
import { createTestDatabase, overriding, queryRows, type TeardownHost } from '../support/clickhouse-helpers.js'
import { eventRow } from '../support/event-rows.js'
import { createLogger } from '../../services/shared/src/log.js'
import { markRanges } from '../../services/shared/src/rollup/dirty-hours.js'
import { hourFloor } from '../../services/shared/src/rollup/event-counts.js'
import { recountRanges } from '../../services/shared/src/rollup/recount-ranges.js'
import { TrendQueries } from '../../services/dashboard/src/api/trends-queries.js'
import { HourRecount } from '../../services/projector/src/rollup/recount.js'
import { purgePeople } from '../../services/projector/src/privacy/purge.js'
import { personDayStatements } from '../../services/shared/src/rollup/person-days.js'
import { propertyDayStatements } from '../../services/shared/src/rollup/property-days.js'
import { waitUntil } from '../support/harness.js'

const ACCOUNT = 'acc_purge_counts'
const H = 3_600_000
const T0 = Date.UTC(2024, 4, 13, 0)

/** A database with three signups (the erased person's and another's in hour 1, the other's in hour 2),
 *  counted as the projector's recount counts them. */
async function counted(t: TeardownHost, prefix: string) {
  const db = await createTestDatabase({ prefix, t })
  let n = 0
  const event = (user_id: string, hour: number, email: string) =>
    eventRow({
      event_id: `e${n++}`,
      account_id: ACCOUNT,
      event: 'signup',
      user_id,
      ms: T0 + hour * H + n,
      properties: { email },
    })
  const rows = [
    event('erased', 1, 'erased@example.com'),
    event('kept', 1, 'kept@example.com'),
    event('kept', 2, 'kept@example.com'),
  ]
  await db.client.insert({ table: `${db.database}.events`, values: rows, format: 'JSONEachRow' })
  const hours = markRanges(rows.map((r) => ({ accountId: ACCOUNT, hourMs: hourFloor(r.timestamp_ms) })))
  await recountRanges(db.client, db.database, hours)
  return db
}

/** The persons of person_counts_daily (U33) with their events, FINAL. */
const persons = (client: ClickHouseClient, database: string) =>
  queryRows<{ user_id: string; events: string }>(
    client,
    `SELECT user_id, sum(events) AS events FROM ${database}.person_counts_daily FINAL GROUP BY user_id ORDER BY user_id`,
  )

t.test("an erased person's property values leave the counts", async (t) => {
  const { client, database } = await counted(t, 'purge_counts')
  const values = (table = 'property_counts_hourly') =>
    queryRows<{ value: string; events: string }>(
      client,
      `SELECT value, sum(events) AS events FROM ${database}.${table} FINAL GROUP BY value ORDER BY value`,
    )
  const before = [
    { value: 'erased@example.com', events: '1' },
    { value: 'kept@example.com', events: '2' },
  ]
  t.same(await values(), before)
  t.same(await values('property_counts_daily'), before, 'the day')
  const counts = [
    { user_id: 'erased', events: '1' },
    { user_id: 'kept', events: '2' },
  ]
  t.same(await persons(client, database), counts, "the persons' day")

  await purgePeople(client, database, [{ account_id: ACCOUNT, user_id: 'erased' }], { pollMs: 50 })
  t.same(await persons(client, database), [], "no person's day until the recount")
  t.same(await values(), [{ value: 'kept@example.com', events: '1' }], 'the erased hour is no longer counted')
  t.same(await values('property_counts_daily'), [], "nor the erased person's day")
  const trends = new TrendQueries(client, database, true)
  const spec = {
    from: new Date(T0),
    to: new Date(T0 + 24 * H),
    interval: 'day' as const,
    filters: [],
    breakdown: 'email',
  }
  t.same((await trends.trend(ACCOUNT, spec)).series, [{ value: 'kept@example.com', counts: [2] }], 'exact meanwhile')

  const recount = new HourRecount(client, database, createLogger('error'), {
    now: () => Date.now() + 86_400_000,
    settleMs: 0,
  })
  t.equal(await recount.runOnce(), 1, 'the recount counts the erased hour again')
  t.same(await values(), [{ value: 'kept@example.com', events: '2' }], 'from the events left')
  t.same(await values('property_counts_daily'), [{ value: 'kept@example.com', events: '2' }], 'the day summed again')
  t.same(await persons(client, database), counts.slice(1), 'the other person counted again, not the erased one')
  t.same((await trends.trend(ACCOUNT, spec)).series, [{ value: 'kept@example.com', counts: [2] }])
})

t.test('a recount running while the purge runs keeps none of the erased values and loses no count', async (t) => {
  const { client, database } = await counted(t, 'purge_counts_race')
  const recount = new HourRecount(client, database, createLogger('error'), {
    now: () => Date.now() + 86_400_000,
    settleMs: 0,
  })
  // The projector's recount runs on its own clock: here, after every statement the purge sends.
  const racing = overriding(client, 'command', async (...args) => {
    const r = await client.command(...args)
    await recount.runOnce()
    return r
  })
  await purgePeople(racing, database, [{ account_id: ACCOUNT, user_id: 'erased' }], { pollMs: 50 })
  await recount.runOnce()
  for (const table of ['property_counts_hourly', 'property_counts_daily']) {
    const values = await queryRows<{ value: string; events: string }>(
      client,
      `SELECT value, sum(events) AS events FROM ${database}.${table} FINAL GROUP BY value ORDER BY value`,
    )
    t.same(
      values,
      [{ value: 'kept@example.com', events: '2' }],
      `${table}: the erased person's value is gone, the other counted twice`,
    )
  }
  const [total] = await queryRows<{ events: string }>(
    client,
    `SELECT sum(events) AS events FROM ${database}.event_counts_hourly FINAL WHERE account_id = '${ACCOUNT}'`,
  )
  t.equal(Number(total!.events), 2, 'the hourly counts hold the events left')
  t.same(await persons(client, database), [{ user_id: 'kept', events: '2' }], "the persons' days: the other's alone")
})

t.test(
  'a recount statement that read the rows before the purge and writes after it keeps none of them (A28)',
  async (t) => {
    const { client, database } = await counted(t, 'purge_counts_inflight')
    const ranges = markRanges([{ accountId: ACCOUNT, hourMs: T0 + H }])
    // The day's statements as the recount sends them, slowed: each reads the parts there are at its start
    // (the events, and the hourly rows, with the person) and writes when it ends, a second a row later,
    // after a purge that did not wait for it.
    const slow = [...personDayStatements(database, ranges), ...propertyDayStatements(database, ranges)].map((q) =>
      q.replace('\nWHERE (', '\nWHERE sleepEachRow(1) = 0 AND ('),
    )
    t.equal(slow.length, 2)
    const writing = slow.map((query) => client.command({ query, clickhouse_settings: { max_block_size: '1' } }))
    const running = async () =>
      (
        await queryRows<{ n: string }>(
          client,
          `SELECT count() AS n FROM system.processes WHERE position(query, 'sleepEachRow(1) = 0 AND (account_id IN (''${ACCOUNT}'')') > 0 AND position(query, '${database}.') > 0`,
        )
      )[0]!.n
    await waitUntil(async () => Number(await running()) === 2, 10_000, 'both statements to run')
    await purgePeople(client, database, [{ account_id: ACCOUNT, user_id: 'erased' }], { pollMs: 50 })
    t.equal(Number(await running()), 0, 'the purge ended after the statements running at its start')
    await Promise.all(writing)
    t.same(await persons(client, database), [], "no day of the erased person's, written late or not")
    const values = await queryRows<{ value: string }>(
      client,
      `SELECT DISTINCT value FROM ${database}.property_counts_daily FINAL ORDER BY value`,
    )
    t.same(values, [], "no day holds the erased person's value (nor any other, until the recount)")
  },
)
