// The Retention query on a small known data set in a fresh ClickHouse database, counted by hand:
// weekly cohorts (Mondays, UTC) of persons across the anonymous -> known switch, their returns in
// weeks 1..3, a person first seen before the period in no cohort, and another account left out.
// On both ClickHouse versions: the stack's current one and the cluster profile's 18.16 (U22).
import t, { type Test } from 'tap'
import { onBothVersions, type VersionedDatabase } from '../../../../test/support/clickhouse-versions.js'
import { personRows } from '../../../../test/support/person-rows.js'
import { RetentionQueries, type RetentionSpec } from './retention-queries.js'

// May 2024: Mondays are the 6th, 13th, 20th and 27th.
const at = (month: number, d: number) => new Date(Date.UTC(2024, month - 1, d, 12))

t.test('weekly cohorts count persons across the anonymous -> known switch', (t) =>
  onBothVersions(t, 'retention', cases),
)

async function cases(t: Test, db: VersionedDatabase) {
  const { row, insert, link } = personRows(db.client, db.database, db)
  const rows = [
    // a: views anonymously (week of 6 May), signs up as user_a, views in weeks 1 and 3 after.
    row('acc_r', 'anon_a', 'view', at(5, 7)),
    row('acc_r', 'user_a', 'signup', at(5, 8)),
    row('acc_r', 'user_a', 'view', at(5, 15)),
    row('acc_r', 'user_a', 'view', at(5, 29)),
    // b: week of 6 May, back in week 2.
    row('acc_r', 'user_b', 'view', at(5, 8)),
    row('acc_r', 'user_b', 'view', at(5, 22)),
    // c: signs up in the week of 13 May, back twice in week 1.
    row('acc_r', 'user_c', 'signup', at(5, 14)),
    row('acc_r', 'user_c', 'view', at(5, 21)),
    row('acc_r', 'user_c', 'view', at(5, 22)),
    // d: first seen before the period; e: after it.
    row('acc_r', 'user_d', 'view', at(4, 29)),
    row('acc_r', 'user_d', 'view', at(5, 14)),
    row('acc_r', 'user_e', 'view', at(5, 21)),
    row('acc_x', 'user_b', 'view', at(5, 8)),
  ]
  await insert(rows)
  await insert([rows[2]]) // a retried insert's duplicate
  await link('acc_r', 'anon_a', 'user_a', at(5, 8))

  const q = new RetentionQueries(db.client, db.database)
  const spec = (over: Partial<RetentionSpec> = {}): RetentionSpec => ({
    weeks: 3,
    from: at(5, 9),
    to: new Date(Date.UTC(2024, 4, 20)),
    ...over,
  })
  const later = Date.UTC(2025, 0, 1)
  const table = async (r: RetentionSpec, account = 'acc_r') =>
    (await q.retention(account, r, later)).cohorts.map((c) => [c.week.slice(0, 10), c.persons, ...c.returned])

  t.same(
    await table(spec()),
    [
      ['2024-05-06', 2, 1, 1, 1],
      ['2024-05-13', 1, 1, 0, 0],
    ],
    'a once across the switch; d and e in no cohort; c back twice in one week counts once',
  )
  t.same(
    await table(spec({ start: 'signup', return: 'view' })),
    [
      ['2024-05-06', 1, 1, 0, 1],
      ['2024-05-13', 1, 1, 0, 0],
    ],
    'a start event and a return event',
  )
  const rates = (await q.retention('acc_r', spec(), later)).cohorts[0]!.rates
  t.same(rates, [0.5, 0.5, 0.5])
  t.same(await table(spec(), 'acc_none'), [], 'nothing of another account')
}
