// The dashboard bench's choice of the month whose Usage read it times (bench/dashboard-pages.ts).
import t from 'tap'
import { fullestMonthCall } from '../../bench/dashboard-pages.js'

t.test('the month holding more of the fill: the previous one early in a month, the current one later', async (t) => {
  t.same(fullestMonthCall(Date.UTC(2026, 11, 5, 3)), {
    page: 'Usage: the month holding most of the fill (26 of its 30 days)',
    path: '/usage?month=2026-11',
  })
  t.equal(fullestMonthCall(Date.UTC(2026, 10, 28)).path, '/usage?month=2026-11')
  t.equal(fullestMonthCall(Date.UTC(2026, 0, 2)).path, '/usage?month=2025-12', 'across a year')
  t.equal(fullestMonthCall(Date.UTC(2026, 2, 16)).path, '/usage?month=2026-03', 'from the 15th day on')
})
