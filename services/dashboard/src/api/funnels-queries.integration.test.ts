// The Funnels query on a small known data set in a fresh ClickHouse database, counted by hand:
// a visitor who views anonymously and signs up and buys under the known id is one person, a purchase
// after the window does not count, steps out of order do not count, step 1 before the period does not
// count, and another account's rows are left out.
// On both ClickHouse versions: the stack's current one and the cluster profile's 18.16 (U22).
import t, { type Test } from 'tap'
import { onBothVersions, type VersionedDatabase } from '../../../../test/support/clickhouse-versions.js'
import { personRows } from '../../../../test/support/person-rows.js'
import { FunnelQueries, type FunnelSpec } from './funnels-queries.js'

const at = (d: number, h: number, m = 0) => new Date(Date.UTC(2024, 4, d, h, m))
const HOUR = 3_600_000

t.test('a funnel counts persons across the anonymous -> known switch', (t) => onBothVersions(t, 'funnels', cases))

async function cases(t: Test, db: VersionedDatabase) {
  const { row, insert, link } = personRows(db.client, db.database, db)
  const rows = [
    // p1: anonymous view, then signup and purchase as user_1 (linked below).
    row('acc_f', 'anon_1', 'page_viewed', at(13, 10), { path: '/pricing' }),
    row('acc_f', 'user_1', 'signup', at(13, 10, 5)),
    row('acc_f', 'user_1', 'purchase', at(13, 11)),
    // p2: purchase 46 h after the view: outside a 1 d window, inside 7 d.
    row('acc_f', 'user_2', 'page_viewed', at(14, 10), { path: '/' }),
    row('acc_f', 'user_2', 'signup', at(14, 12)),
    row('acc_f', 'user_2', 'purchase', at(16, 8)),
    // p3: views only.
    row('acc_f', 'user_3', 'page_viewed', at(15, 10), { path: '/' }),
    // p4: signs up before viewing: the signup is not step 2.
    row('acc_f', 'user_4', 'signup', at(15, 9)),
    row('acc_f', 'user_4', 'page_viewed', at(15, 10), { path: '/' }),
    // p5: step 1 before the period.
    row('acc_f', 'user_5', 'page_viewed', at(12, 10), { path: '/' }),
    row('acc_f', 'user_5', 'signup', at(12, 11)),
    // Another account.
    row('acc_x', 'user_1', 'page_viewed', at(13, 10)),
    row('acc_x', 'user_1', 'signup', at(13, 11)),
  ]
  await insert(rows)
  await insert([rows[0]]) // a retried insert's duplicate
  await link('acc_f', 'anon_1', 'user_1', at(13, 10, 5))

  const q = new FunnelQueries(db.client, db.database)
  const spec = (over: Partial<FunnelSpec> = {}): FunnelSpec => ({
    steps: [{ event: 'page_viewed' }, { event: 'signup' }, { event: 'purchase' }],
    windowMs: 24 * HOUR,
    from: at(13, 0),
    to: at(20, 0),
    ...over,
  })
  const persons = async (f: FunnelSpec) => (await q.funnel('acc_f', f)).steps.map((s) => s.persons)

  const day = await q.funnel('acc_f', spec())
  t.same(
    day.steps.map((s) => s.persons),
    [4, 2, 1],
    'p1 once across the switch; p2 buys outside 1 d; p4 out of order; p5 before the period',
  )
  t.same(
    day.steps.map((s) => s.dropoff),
    [0, 2, 1],
  )
  t.same(
    day.steps.map((s) => s.conversion),
    [1, 0.5, 0.25],
  )
  t.same(await persons(spec({ windowMs: 7 * 24 * HOUR })), [4, 2, 2], 'p2 buys inside 7 d')
  t.same(
    await persons(spec({ windowMs: HOUR })),
    [4, 1, 1],
    'p1 bought 1 h after the view (the window includes its end), p2 signed up 2 h after',
  )
  t.same(
    await persons(
      spec({ steps: [{ event: 'page_viewed', filter: { key: 'path', value: '/pricing' } }, { event: 'signup' }] }),
    ),
    [1, 1],
    'a step filtered by a property',
  )
  t.same(
    (await q.funnel('acc_none', spec())).steps.map((s) => s.persons),
    [0, 0, 0],
    'nothing of another account',
  )
}
