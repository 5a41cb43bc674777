import t from 'tap'
import { retentionSql, toRetention, type RetentionSpec } from './retention-queries.js'
import { retentionSpecOf } from './retention-params.js'

const spec = (over: Partial<RetentionSpec> = {}): RetentionSpec => ({
  weeks: 2,
  from: new Date('2024-05-08T00:00:00Z'), // a Wednesday
  to: new Date('2024-05-20T00:00:00Z'),
  ...over,
})
const may = (d: number) => Date.UTC(2024, 4, d) / 1000

t.test('every value is bound; cohorts from the Monday of the period, rows until weeks+1 after it', async (t) => {
  const q = retentionSql('db1', "acc'1", spec({ start: "s'", return: 'r', environment: 'test' }))
  t.match(q, /account_id = 'acc\\'1'/)
  t.match(q, /event = 's\\'' AS is_start, event = 'r' AS is_return/)
  t.match(q, /event IN \('s\\'', 'r'\)/)
  t.match(q, /environment = 'test'/)
  t.match(q, new RegExp(`cohort >= ${may(6)} AND cohort < ${may(20)}`))
  t.match(q, /FROM db1\.person_weeks WHERE .* AND week < toDateTime\('2024-06-10 00:00:00', 'UTC'\)/)
  t.notMatch(q, /week >=/, 'a first event is the first ever')
  t.match(q, /k <= 2\n/)
  const any = retentionSql('db1', 'a', spec())
  t.match(any, /event = '' AS is_start, event = '' AS is_return/)
  t.match(any, /event IN \(''\)/, "any event: the weeks of event '' are read (U23), not every event's")
  t.match(retentionSql('db1', 'a', spec({ return: 'r' })), /event IN \('', 'r'\)/)
  t.throws(() => retentionSql('db; DROP', 'a', spec()), { code: 'SQL_BIND_ERROR' })
})

t.test('rows become cohorts, oldest first, a week not begun by now is null', async (t) => {
  const r = toRetention(
    [
      { cohort: may(13), k: 0, persons: '2' },
      { cohort: String(may(6)), k: '0', persons: '4' },
      { cohort: may(6), k: 2, persons: 1 },
    ],
    spec(),
    Date.UTC(2024, 4, 21),
  )
  t.same(r.cohorts, [
    { week: '2024-05-06T00:00:00.000Z', persons: 4, returned: [0, 1], rates: [0, 0.25] },
    { week: '2024-05-13T00:00:00.000Z', persons: 2, returned: [0, null], rates: [0, null] },
  ])
})

t.test('parameters: weeks 1..12, periods in weeks or custom', async (t) => {
  const now = Date.parse('2024-06-01T00:00:00Z')
  const of = (p: Record<string, string>) =>
    retentionSpecOf({ ...p, custom: () => ({ from: new Date(1), to: new Date(2) }) }, now)
  const d = of({})
  t.equal(d.weeks, 8)
  t.equal(d.from.toISOString(), '2024-04-06T00:00:00.000Z', '8 weeks by default')
  t.same(of({ start: 'a', return: 'b', weeks: '12', period: '4w' }).start, 'a')
  t.equal(of({ period: 'custom' }).to.getTime(), 2)
  const bads: Array<Record<string, string>> = [{ weeks: '0' }, { weeks: '13' }, { weeks: '1.5' }, { period: '1y' }]
  for (const bad of bads) t.throws(() => of(bad), { code: 'VALIDATION_ERROR' }, JSON.stringify(bad))
})
