// The hourly counts kept by the step after the write and the recount (U19, U25 of docs/design.md): a
// written hour is marked dirty and read from the events until its recount, so Trends is exact at every
// moment; once closed and recounted the hour's count is exact too (a batch written twice, at least once
// by A1, counts once; a late event into an hour counted already is added by the next recount).
import t, { type Test } from 'tap'
import { ClickHouseWriter, prepareBatch } from '../../services/projector/src/clickhouse/writer.js'
import { HourMarks } from '../../services/projector/src/rollup/hour-marks.js'
import { HourRecount } from '../../services/projector/src/rollup/recount.js'
import { TrendQueries } from '../../services/dashboard/src/api/trends-queries.js'
import { DefinitionQueries } from '../../services/dashboard/src/api/definitions-queries.js'
import { dirtyHours, END_OF_HOURS_MS, MARK_SETTLE_MS } from '../../services/shared/src/rollup/dirty-hours.js'
import { createLogger } from '../../services/shared/src/log.js'
import { createTestDatabase, makeEvent, queryRows } from '../support/clickhouse-helpers.js'
import type { EventRecord } from '../../schemas/records.js'

const H = 3_600_000
const T0 = Date.UTC(2024, 4, 10, 8)
const log = createLogger('error')

async function setup(t: Test, clock: { now: number }) {
  const db = await createTestDatabase({ prefix: 'hourly', t })
  const now = () => clock.now
  const sink = new ClickHouseWriter(db.client, db.database, {
    hourMarks: new HourMarks(db.client, db.database, { now }),
  })
  const write = (events: EventRecord[]) => sink.writePrepared(prepareBatch({ events, identifies: [] }).prepared)
  const recount = new HourRecount(db.client, db.database, log, { now })
  const counts = () =>
    queryRows<{ event: string; hour: string; events: string }>(
      db.client,
      `SELECT event, toString(hour) AS hour, events FROM ${db.database}.event_counts_hourly FINAL ORDER BY hour, event`,
    )
  const dirty = () => dirtyHours(db.client, db.database, 'acc_1', 0, END_OF_HOURS_MS)
  // Trends of acc_1 by hour over the day of T0, read the way the dashboard reads it (HOURLY_COUNTS on).
  const trend = async () => {
    const spec = { from: new Date(T0), to: new Date(T0 + 24 * H), interval: 'hour' as const, filters: [] }
    const r = await new TrendQueries(db.client, db.database, true).trend('acc_1', spec)
    return r.series[0]?.counts.slice(0, 4) ?? []
  }
  // Definitions' totals per name, read the same way.
  const totals = async () => {
    const defs = await new DefinitionQueries(db.client, db.database, true).events('acc_1', undefined, clock.now)
    return Object.fromEntries(defs.map((d) => [d.event, [d.total, d.last_7d]]))
  }
  return { db, write, recount, counts, dirty, trend, totals }
}

t.test('duplicates and a late event: exact before and after the recount', async (t) => {
  const clock = { now: T0 + 2 * H + 60_000 }
  const { write, recount, counts, dirty, trend, totals } = await setup(t, clock)
  const batch = [
    makeEvent({ event: 'signup', timestamp: T0 + 1 }),
    makeEvent({ event: 'signup', timestamp: T0 + H - 1 }),
    makeEvent({ event: 'page', timestamp: T0 + 2 * H + 5 }),
  ]
  await write(batch)
  await write(batch) // written again (at least once): the same events
  t.same(await dirty(), [T0, T0 + 2 * H], 'the written hours are dirty')
  t.same(await trend(), [2, 0, 1, 0], 'read from the events meanwhile: each event once')
  t.same(await counts(), [], 'nothing is counted per batch')

  // 08:00 is closed at 09:05; 10:00 is still open at 10:06 and is not counted.
  clock.now = T0 + 2 * H + 6 * 60_000
  t.equal(await recount.runOnce(), 1, 'one closed hour counted')
  t.same(await counts(), [{ event: 'signup', hour: '2024-05-10 08:00:00', events: '2' }])
  t.same(await dirty(), [T0 + 2 * H], 'the open hour stays dirty')
  t.same(await trend(), [2, 0, 1, 0])

  // A late event into the counted hour: marked dirty at once, added by the next recount.
  clock.now += 60_000
  await write([makeEvent({ event: 'signup', timestamp: T0 + 30 })])
  t.same(await dirty(), [T0, T0 + 2 * H], 'the late event makes its hour dirty again')
  t.same(await trend(), [3, 0, 1, 0], 'Trends counts it before the recount')
  t.same(await totals(), { signup: [3, 3], page: [1, 1] }, 'so do Definitions')
  clock.now = T0 + 4 * H
  t.equal(await recount.runOnce(), 2)
  t.same(await counts(), [
    { event: 'signup', hour: '2024-05-10 08:00:00', events: '3' },
    { event: 'page', hour: '2024-05-10 10:00:00', events: '1' },
  ])
  t.same(await dirty(), [], 'every hour counted')
  t.same(await trend(), [3, 0, 1, 0], 'and read from the counts alone')
  t.same(await totals(), { signup: [3, 3], page: [1, 1] })
  t.equal(await recount.runOnce(), 0, 'a counted hour is not counted again')
})

t.test('an hour is marked once a minute at most, and counted once its marks have settled', async (t) => {
  const clock = { now: T0 + 10 * 60_000 }
  const { db, write, recount, counts, dirty } = await setup(t, clock)
  const marks = async () =>
    Number(
      (await queryRows<{ n: string }>(db.client, `SELECT count() AS n FROM ${db.database}.event_counts_dirty`))[0]!.n,
    )
  await write([makeEvent({ timestamp: T0 + 1 })])
  await write([makeEvent({ timestamp: T0 + 2 })])
  await write([makeEvent({ timestamp: T0 + 3 })])
  t.equal(await marks(), 1, 'one mark for three batches into the open hour')

  clock.now = T0 + 2 * H
  t.equal(await recount.runOnce(), 1)
  // A late event marked in the very millisecond the recount began: the recount may have missed it.
  await write([makeEvent({ timestamp: T0 + 4 })])
  t.same(await dirty(), [T0], 'a mark of the same millisecond as the count wins')
  clock.now += MARK_SETTLE_MS / 2
  t.equal(await recount.runOnce(), 0, 'an hour marked less than a minute ago is not counted yet')
  await write([makeEvent({ timestamp: T0 + 5 })])
  t.equal(await marks(), 3, 'nor marked again by this process')
  clock.now += MARK_SETTLE_MS / 2
  t.equal(await recount.runOnce(), 1)
  t.same(await dirty(), [])
  t.same(
    await counts(),
    [{ event: 'page_viewed', hour: '2024-05-10 08:00:00', events: '5' }],
    'the write whose mark was skipped is counted',
  )
})

t.test('events stored by a write that failed before its marks are marked by its retry', async (t) => {
  const clock = { now: T0 + 10 * H }
  const { db, write, recount, counts } = await setup(t, clock)
  const e = makeEvent({ event: 'refund', timestamp: T0 + 5 * H })
  await new ClickHouseWriter(db.client, db.database).write({ events: [e], identifies: [] })
  await write([e]) // the retry: its event is dropped as stored (H16), its hour still marked
  clock.now += MARK_SETTLE_MS
  await recount.runOnce()
  t.same(await counts(), [{ event: 'refund', hour: '2024-05-10 13:00:00', events: '1' }])
})
