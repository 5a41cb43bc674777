// The daily person counts' statements (U33).
import t from 'tap'
import { loadMigrations } from '../../../../schemas/clickhouse/migrate.js'
import { HOUR_MS } from './event-counts.js'
import { DAY_MS } from './property-days.js'
import { personDayStatements, personDaysSelect } from './person-days.js'
import { recountStatements } from './recount-ranges.js'

const D = Date.UTC(2024, 4, 13)

t.test("migration 019's backfill counts the events as the recount does (one rule, U33)", async (t) => {
  const m019 = (await loadMigrations()).find((m) => m.version === 19)!
  const backfill = m019.statements.find((x) => x.startsWith('INSERT'))
  const select = personDaysSelect('DBNAME', '1').replaceAll('DBNAME', '{db}')
  t.equal(backfill, `INSERT INTO {db}.person_counts_daily\n${select}`, 'the backfill is personDaysSelect')
  t.match(select, /FROM \{db\}\.events FINAL/)
})

t.test('an hour recounted counts its whole day again, per person, from the events', async (t) => {
  const [q, more] = personDayStatements('db1', [{ accountId: "a'b", fromMs: D + 5 * HOUR_MS, toMs: D + 6 * HOUR_MS }])
  t.equal(more, undefined, 'one statement')
  t.match(
    q!,
    /^INSERT INTO db1\.person_counts_daily \(account_id, environment, day, person, person_check, user_id, events\)/,
  )
  t.match(
    q!,
    "account_id IN ('a\\'b') AND timestamp >= toDateTime('2024-05-13 00:00:00', 'UTC') AND timestamp < toDateTime('2024-05-14 00:00:00', 'UTC')",
  )
  t.match(
    q!,
    /cityHash64\(toString\(environment\), user_id\), sipHash64\(user_id\), user_id, count\(\) AS events\nFROM db1\.events FINAL/,
  )
  // The recount runs them after the other tables' statements, once per group of months.
  const all = recountStatements('db1')([{ accountId: 'a', fromMs: D + DAY_MS - HOUR_MS, toMs: D + DAY_MS + HOUR_MS }])
  t.match(all.at(-1)!, /^INSERT INTO db1\.person_counts_daily/)
  t.match(
    all.at(-1)!,
    "timestamp >= toDateTime('2024-05-13 00:00:00', 'UTC') AND timestamp < toDateTime('2024-05-15 00:00:00', 'UTC')",
  )
})
