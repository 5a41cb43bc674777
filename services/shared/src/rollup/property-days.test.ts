// The daily property counts' statements and the days a breakdown reads from them (U29).
import t from 'tap'
import { loadMigrations } from '../../../../schemas/clickhouse/migrate.js'
import { HOUR_MS } from './event-counts.js'
import { countedDays, DAY_MS, dayRanges, propertyDayStatements, propertyDaysSelect } from './property-days.js'

const D = Date.UTC(2024, 4, 13)

t.test("migration 017's backfill sums the hourly rows as the recount does (one rule, U29)", async (t) => {
  const m017 = (await loadMigrations()).find((m) => m.version === 17)!
  const backfill = m017.statements.find((x) => x.startsWith('INSERT'))
  const select = propertyDaysSelect('DBNAME', '1').replaceAll('DBNAME', '{db}')
  t.equal(backfill, `INSERT INTO {db}.property_counts_daily\n${select}`, 'the backfill is propertyDaysSelect')
  t.match(select, /FROM \{db\}\.property_counts_hourly FINAL/)
})

t.test("the hours recounted become their whole days, an account's days joined", async (t) => {
  t.same(
    dayRanges([
      { accountId: 'a', fromMs: D + 5 * HOUR_MS, toMs: D + 6 * HOUR_MS },
      { accountId: 'b', fromMs: D + 23 * HOUR_MS, toMs: D + 25 * HOUR_MS },
      { accountId: 'a', fromMs: D + 20 * HOUR_MS, toMs: D + 21 * HOUR_MS },
      { accountId: 'a', fromMs: D + 3 * DAY_MS, toMs: D + 3 * DAY_MS + HOUR_MS },
    ]),
    [
      { accountId: 'a', fromMs: D, toMs: D + DAY_MS },
      { accountId: 'a', fromMs: D + 3 * DAY_MS, toMs: D + 4 * DAY_MS },
      { accountId: 'b', fromMs: D, toMs: D + 2 * DAY_MS },
    ],
  )
  const [q, more] = propertyDayStatements('db1', [{ accountId: "a'b", fromMs: D + HOUR_MS, toMs: D + 2 * HOUR_MS }])
  t.equal(more, undefined, 'one statement')
  t.match(q!, /^INSERT INTO db1\.property_counts_daily \(account_id, environment, event, day, key, value, events\)/)
  t.match(
    q!,
    "account_id IN ('a\\'b') AND hour >= toDateTime('2024-05-13 00:00:00', 'UTC') AND hour < toDateTime('2024-05-14 00:00:00', 'UTC')",
  )
})

t.test('a breakdown reads from the days the whole days without a dirty hour', async (t) => {
  const from = D + 5 * HOUR_MS
  const to = D + 5 * DAY_MS + 2 * HOUR_MS
  t.same(countedDays(from, to, []), [{ accountId: '', fromMs: D + DAY_MS, toMs: D + 5 * DAY_MS }], 'whole days only')
  t.same(
    countedDays(from, to, [D + 6 * HOUR_MS, D + 2 * DAY_MS + 23 * HOUR_MS]),
    [
      { accountId: '', fromMs: D + DAY_MS, toMs: D + 2 * DAY_MS },
      { accountId: '', fromMs: D + 3 * DAY_MS, toMs: D + 5 * DAY_MS },
    ],
    'a day with a dirty hour is read from the hours',
  )
  t.same(countedDays(D, D + DAY_MS - HOUR_MS, []), [], 'no whole day')
})
