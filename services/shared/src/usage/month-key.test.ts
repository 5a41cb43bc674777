import t from 'tap'
import { isMonthKey, monthKeyOf, monthStart } from './month-key.js'

t.test('month keys', async (t) => {
  t.equal(monthStart('2024-05'), '2024-05-01')
  t.equal(monthStart('1999-12'), '1999-12-01')
  for (const bad of ['2024-13', '2024-00', '2024-5', '2024-05-01', "2024-05' OR 1", '']) {
    t.throws(() => monthStart(bad), RangeError, bad)
    t.notOk(isMonthKey(bad), bad)
  }
  t.ok(isMonthKey('2024-05'))
})

t.test('monthKeyOf is the UTC month', async (t) => {
  const apr1 = Date.UTC(2025, 3, 1)
  t.equal(monthKeyOf(Date.UTC(2025, 2, 10)), '2025-03')
  t.equal(monthKeyOf(apr1 - 1), '2025-03')
  t.equal(monthKeyOf(apr1), '2025-04')
})
