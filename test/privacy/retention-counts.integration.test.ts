// Per-account retention (H60, H82) and the counts tables (U19, U26): after the job, no hour of the account
// that ended at or before its cutoff is left in property_counts_hourly (whose values can name a person) nor
// in event_counts_hourly, and no such day in property_counts_daily (U29) nor in person_counts_daily (U33, a
// person's events per day), FINAL or not; the hour from the cutoff on and another account's old hours stay.
import t from 'tap'
import { createTestDatabase, queryRows } from '../support/clickhouse-helpers.js'
import { eventRow } from '../support/event-rows.js'
import { createLogger } from '../../services/shared/src/log.js'
import { markRanges } from '../../services/shared/src/rollup/dirty-hours.js'
import { hourFloor } from '../../services/shared/src/rollup/event-counts.js'
import { recountRanges } from '../../services/shared/src/rollup/recount-ranges.js'
import { RetentionRules, retentionCutoff } from '../../services/shared/src/privacy/retention.js'
import { AccountRetention } from '../../services/projector/src/retention/account-retention.js'

const KEPT = 'acc_retention_counts'
const OTHER = 'acc_retention_counts_other'
const H = 3_600_000
const NOW = Date.UTC(2024, 6, 15, 12)
const CUTOFF = retentionCutoff(1, NOW)! // 2024-06-15 00:00 UTC

t.test("an account's expired hours leave the counts tables", async (t) => {
  const { client, database } = await createTestDatabase({ prefix: 'retention_counts', t })
  let n = 0
  const event = (account_id: string, ms: number, email: string) =>
    eventRow({ event_id: `e${n++}`, account_id, event: 'signup', user_id: 'u', ms, properties: { email } })
  const rows = [
    event(KEPT, CUTOFF - 40 * 24 * H, 'month-before@example.com'),
    event(KEPT, CUTOFF - 2 * H, 'old@example.com'),
    event(KEPT, CUTOFF - 1, 'last-expired-ms@example.com'),
    event(KEPT, CUTOFF, 'first-kept-ms@example.com'),
    event(KEPT, CUTOFF + 24 * H, 'new@example.com'),
    event(OTHER, CUTOFF - 2 * H, 'theirs@example.com'),
  ]
  await client.insert({ table: `${database}.events`, values: rows, format: 'JSONEachRow' })
  const hours = markRanges(rows.map((r) => ({ accountId: r.account_id, hourMs: hourFloor(r.timestamp_ms) })))
  await recountRanges(client, database, hours)

  const BUCKET: Record<string, string> = { event_counts_hourly: 'hour', person_counts_daily: 'day' }
  const left = async (table: string, account: string, final = '') =>
    (
      await queryRows<{ h: string; n: string }>(
        client,
        `SELECT toString(${BUCKET[table] ?? 'value'}) AS h, sum(events) AS n FROM ${database}.${table} ${final}
         WHERE account_id = '${account}' GROUP BY h ORDER BY h`,
      )
    ).map((r) => r.h)
  t.same(
    await left('property_counts_hourly', KEPT),
    [
      'first-kept-ms@example.com',
      'last-expired-ms@example.com',
      'month-before@example.com',
      'new@example.com',
      'old@example.com',
    ],
    'every hour is counted before the job (the test can fail)',
  )
  t.same(await left('property_counts_daily', KEPT), await left('property_counts_hourly', KEPT), 'and every day')
  t.same(
    await left('person_counts_daily', KEPT),
    ['2024-05-06 00:00:00', '2024-06-14 00:00:00', '2024-06-15 00:00:00', '2024-06-16 00:00:00'],
    "and the person's days",
  )

  const rules = new RetentionRules()
  rules.apply({ account_id: KEPT, retention_months: 1 })
  const job = new AccountRetention(client, database, rules, createLogger('error'), { now: () => NOW, pollMs: 50 })
  const run = await job.runOnce()
  t.same(
    run.removed.map((r) => [r.table, r.rows]),
    [
      ['events', 3],
      // The first event's week, for its event and for "any event" (U23); the other expired events' week
      // goes once its latest event is expired.
      ['person_weeks', 2],
      ['property_counts_hourly', 3],
      ['event_counts_hourly', 3],
      // Two days: the month before's, and the cutoff's day before with two values.
      ['property_counts_daily', 3],
      // The person's two expired days.
      ['person_counts_daily', 2],
    ],
    'the expired events, then their hours and days of the counts tables',
  )
  for (const final of ['', 'FINAL']) {
    t.same(
      await left('property_counts_hourly', KEPT, final),
      ['first-kept-ms@example.com', 'new@example.com'],
      `no expired value is left ${final}`,
    )
    t.same(
      await left('property_counts_daily', KEPT, final),
      ['first-kept-ms@example.com', 'new@example.com'],
      `no expired day is left ${final}`,
    )
    t.same(
      await left('event_counts_hourly', KEPT, final),
      ['2024-06-15 00:00:00', '2024-06-16 00:00:00'],
      `no expired hour is counted ${final}`,
    )
    t.same(
      await left('person_counts_daily', KEPT, final),
      ['2024-06-15 00:00:00', '2024-06-16 00:00:00'],
      `no expired day of the person is left ${final}`,
    )
  }
  t.same(
    await left('property_counts_hourly', OTHER),
    ['theirs@example.com'],
    'an account without a retention keeps its hours',
  )
  t.same(await left('event_counts_hourly', OTHER), ['2024-06-14 22:00:00'])
  t.same(await left('property_counts_daily', OTHER), ['theirs@example.com'])
  t.same(await left('person_counts_daily', OTHER), ['2024-06-14 00:00:00'])
  t.same((await job.runOnce()).removed, [], 'a second run finds nothing left')
})
