// Definitions (U8) on a small known data set: counts over 7 and 30 days and in all, first and last
// seen, and property keys inferred from samples both for a name seen in the last day (read with the
// counts) and for one last seen weeks ago (read from that name's own last day); another account's
// rows and keys left out.
import t from 'tap'
import { createTestDatabase, type TestDatabase } from '../../../../test/support/clickhouse-helpers.js'
import { eventRow } from '../../../../test/support/event-rows.js'
import { markRanges } from '../../../shared/src/rollup/dirty-hours.js'
import { hourFloor, rebuildCounts } from '../../../shared/src/rollup/event-counts.js'
import { DefinitionQueries } from './definitions-queries.js'

const NOW = Date.UTC(2024, 4, 31, 12)
const DAY = 86_400_000
const MIN = 60_000

/** Rows stored as the projector's writer stores them: the events, then their hours counted (U19). */
async function store(db: TestDatabase, values: ReturnType<typeof eventRow>[]) {
  await db.client.insert({ table: `${db.database}.events`, values, format: 'JSONEachRow' })
  const hours = markRanges(values.map((v) => ({ accountId: v.account_id, hourMs: hourFloor(v.timestamp_ms) })))
  await rebuildCounts(db.client, db.database, hours)
}

t.test('definitions count and describe each event name', async (t) => {
  const db = await createTestDatabase({ prefix: 'definitions', t })
  let n = 0
  const row = (account_id: string, event: string, ms: number, properties: object) =>
    eventRow({ event_id: `e${n++}`, account_id, event, ms, properties })
  const values = [
    row('acc_a', 'recent', NOW - 3_600_000, { plan: 'pro', seats: 3 }),
    row('acc_a', 'recent', NOW - 10 * DAY, { plan: 'free' }),
    row('acc_a', 'recent', NOW - 40 * DAY, { plan: 'free' }),
    row('acc_a', 'old', NOW - 20 * DAY, { paid: true }),
    row('acc_a', 'old', NOW - 20 * DAY - 3_600_000, { paid: false, coupon: 'X' }),
    row('acc_b', 'old', NOW - 3_600_000, { secret: 'b' }),
  ]
  await store(db, values)

  const defs = await new DefinitionQueries(db.client, db.database, true).events('acc_a', undefined, NOW)
  const keys = (event: string) =>
    defs
      .find((d) => d.event === event)!
      .properties.map((p) => `${p.key}:${p.types.join('|')}`)
      .sort()
  t.match(defs, [
    {
      event: 'recent',
      last_7d: 1,
      last_30d: 2,
      total: 3,
      first_seen: new Date(NOW - 40 * DAY).toISOString(),
      last_seen: new Date(NOW - 3_600_000).toISOString(),
    },
    { event: 'old', last_7d: 0, last_30d: 2, total: 2, last_seen: new Date(NOW - 20 * DAY).toISOString() },
  ])
  t.same(keys('recent'), ['plan:string', 'seats:number'], "a name seen in the last day: that day's rows")
  t.same(keys('old'), ['coupon:string', 'paid:boolean'], "a name last seen weeks ago: its own last day's rows")
})

t.test('counts are exact: a duplicate once, the 7 and 30 day bounds inside an hour', async (t) => {
  const db = await createTestDatabase({ prefix: 'definitions', t })
  const now = NOW + 30 * MIN // the bounds now - 7 d and now - 30 d fall at half past an hour
  let n = 0
  const row = (ms: number) =>
    eventRow({ event_id: `d${n++}`, account_id: 'acc_a', event: 'signup', ms, properties: {} })
  const values = [
    row(now - MIN),
    row(now - 7 * DAY + 5 * MIN), // inside 7 days
    row(now - 7 * DAY - 5 * MIN), // the same hour, outside 7 days
    row(now - 30 * DAY + MIN), // inside 30 days
    row(now - 30 * DAY - MIN), // the same hour, outside 30 days
  ]
  await store(db, values)
  await store(db, [values[0]!]) // a retried insert of the same event
  const [defs] = await new DefinitionQueries(db.client, db.database, true).events('acc_a', undefined, now)
  t.match(defs, {
    event: 'signup',
    last_7d: 2,
    last_30d: 4,
    total: 5,
    first_seen: new Date(now - 30 * DAY - MIN).toISOString(),
    last_seen: new Date(now - MIN).toISOString(),
  })
})
