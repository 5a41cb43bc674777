import t from 'tap'
import { monthStart } from './usage-query.js'

t.test('month keys', async (t) => {
  t.equal(monthStart('2024-05'), '2024-05-01')
  t.equal(monthStart('1999-12'), '1999-12-01')
  for (const bad of ['2024-13', '2024-00', '2024-5', '2024-05-01', "2024-05' OR 1", '']) {
    t.throws(() => monthStart(bad), RangeError, bad)
  }
})
