import t from 'tap'
import {
  MonthlyQuota,
  admitIds,
  grantable,
  monthKeyOf,
  monthRange,
  quotaCounter,
  reservationOf,
} from './monthly-quota.js'

const MAR_10 = Date.UTC(2025, 2, 10, 12, 0, 0)
const APR_1 = Date.UTC(2025, 3, 1)

t.test('monthKeyOf is the UTC month', async (t) => {
  t.equal(monthKeyOf(MAR_10), '2025-03')
  t.equal(monthKeyOf(APR_1 - 1), '2025-03')
  t.equal(monthKeyOf(APR_1), '2025-04')
})

t.test('grants within the limit and reports used, reset time and Retry-After', async (t) => {
  const q = new MonthlyQuota()
  const r = q.reserve('acc', 1, 1000, MAR_10)
  t.same(r, {
    granted: 1,
    charged: 1,
    used: 1,
    limit: 1000,
    resetsAt: '2025-04-01T00:00:00.000Z',
    retryAfterSeconds: (APR_1 - MAR_10) / 1000,
  })
  t.equal(q.reserve('acc', 1, 1000, MAR_10).used, 2)
  t.equal(q.used('acc', MAR_10), 2)
})

t.test('a batch crossing the limit is partly granted; later requests get nothing', async (t) => {
  const q = new MonthlyQuota()
  t.equal(q.reserve('acc', 95, 100, MAR_10).granted, 95)
  const partial = q.reserve('acc', 10, 100, MAR_10 + 1)
  t.equal(partial.granted, 5, 'items within the remaining quota are granted (H5)')
  t.equal(partial.used, 100)
  const none = q.reserve('acc', 3, 100, MAR_10 + 2)
  t.equal(none.granted, 0)
  t.equal(none.used, 100, 'used never passes the limit through refused items')
  t.equal(q.reserve('other', 3, 100, MAR_10).granted, 3, 'accounts are separate')
})

t.test('a new UTC month resets the count', async (t) => {
  const q = new MonthlyQuota()
  q.reserve('acc', 100, 100, APR_1 - 1)
  t.equal(q.reserve('acc', 1, 100, APR_1 - 1).granted, 0)
  const r = q.reserve('acc', 1, 100, APR_1)
  t.equal(r.granted, 1)
  t.equal(r.used, 1)
  t.equal(r.resetsAt, '2025-05-01T00:00:00.000Z')
  t.equal(q.used('acc', APR_1), 1)
})

t.test('release gives back a reservation (Kafka failed) in the same month only', async (t) => {
  const q = new MonthlyQuota()
  q.reserve('acc', 10, 10, MAR_10)
  q.release('acc', 4, MAR_10)
  const r = q.reserve('acc', 10, 10, MAR_10 + 5)
  t.equal(r.granted, 4)
  q.release('acc', 1000, MAR_10)
  t.equal(q.used('acc', MAR_10), 0, 'never below zero')
  q.reserve('acc', 3, 10, APR_1)
  q.release('acc', 3, MAR_10) // a March reservation released after April began
  t.equal(q.used('acc', APR_1), 3, 'April usage untouched')
})

t.test('projected usage: counts once whether or not the projector has seen local events', async (t) => {
  const q = new MonthlyQuota()
  // restart mid-month: the projector already counted 900 events
  q.setProjectedUsage('acc', '2025-03', 900)
  const r = q.reserve('acc', 50, 1000, MAR_10)
  t.equal(r.granted, 50)
  t.equal(r.used, 950)

  // a single instance from the month start: local 600 accepted, projector lagging at 550
  const q2 = new MonthlyQuota()
  q2.reserve('acc', 600, 1000, MAR_10)
  q2.setProjectedUsage('acc', '2025-03', 550)
  t.equal(q2.used('acc', MAR_10), 600, 'lagging projection does not lose local events')
  q2.setProjectedUsage('acc', '2025-03', 600)
  t.equal(q2.used('acc', MAR_10), 600, 'caught-up projection does not double-count')
  q2.setProjectedUsage('acc', '2025-03', 980) // other instances' events
  t.equal(q2.reserve('acc', 50, 1000, MAR_10).granted, 20)
})

t.test('projected usage for another month', async (t) => {
  const q = new MonthlyQuota()
  q.reserve('acc', 10, 100, APR_1)
  q.setProjectedUsage('acc', '2025-03', 99)
  t.equal(q.used('acc', APR_1), 10, "last month's count is ignored")
  q.setProjectedUsage('acc', '2025-04', 40)
  t.equal(q.used('acc', APR_1), 40)
  t.throws(() => q.setProjectedUsage('acc', '2025-13', 1), RangeError)
  t.throws(() => q.setProjectedUsage('acc', '2025-04', -1), RangeError)
})

t.test('a limit lowered below usage grants nothing; n <= 0 grants nothing', async (t) => {
  const q = new MonthlyQuota()
  q.setProjectedUsage('acc', '2025-03', 500)
  const r = q.reserve('acc', 5, 100, MAR_10)
  t.equal(r.granted, 0)
  t.equal(r.used, 500)
  t.equal(q.reserve('acc', 0, 1000, MAR_10).granted, 0)
})

t.test('December rolls into January of the next year', async (t) => {
  const q = new MonthlyQuota()
  const r = q.reserve('acc', 1, 10, Date.UTC(2025, 11, 31, 23, 59, 59))
  t.equal(r.resetsAt, '2026-01-01T00:00:00.000Z')
  t.equal(r.retryAfterSeconds, 1)
})

t.test('a retried message id is counted once while it is remembered (H34)', async (t) => {
  const q = new MonthlyQuota({ inFlightMs: 600_000 })
  const same = new Array(100).fill('m1')
  for (let i = 0; i < 10; i++) {
    const r = q.reserve('acc', same, 1000, MAR_10 + i)
    t.same([r.granted, r.charged], [100, i === 0 ? 1 : 0], `send ${i + 1}`)
  }
  t.equal(q.used('acc', MAR_10), 1, '1000 items of one message: 1 event, as billing counts it')
  t.equal(q.reserve('acc', 999, 1000, MAR_10 + 20).granted, 999, 'the rest of the month is left')
  const at = q.reserve('acc', ['m1', 'new'], 1000, MAR_10 + 30)
  t.same(at.accepted, [true, false], 'at the limit a retry still passes, a new event does not')
  const later = q.reserve('acc', ['m1'], 2000, MAR_10 + 600_001)
  t.equal(later.charged, 1, 'once forgotten, a retry is counted again...')
  q.setProjectedUsage('acc', '2025-03', 1000, MAR_10 + 600_001 + 660_000)
  t.equal(q.used('acc', MAR_10 + 1_300_000), 1000, '...until the projection lowers the count to what was stored')
})

t.test('reconcile lowers the local count to projected + counted in flight, never below projected (H34)', async (t) => {
  const q = new MonthlyQuota({ inFlightMs: 600_000 })
  q.reserve('acc', 50, 1000, MAR_10)
  q.setProjectedUsage('acc', '2025-03', 10, MAR_10 + 1000)
  t.equal(q.used('acc', MAR_10 + 1000), 50, 'the 50 are in flight: kept')
  q.setProjectedUsage('acc', '2025-03', 10, MAR_10 + 700_000)
  t.equal(q.used('acc', MAR_10 + 700_000), 10, 'out of the window: what is stored')
  q.reserve('acc', 5, 1000, MAR_10 + 700_000)
  q.setProjectedUsage('acc', '2025-03', 12, MAR_10 + 701_000)
  t.equal(q.used('acc', MAR_10 + 701_000), 15, '10 + 5 counted here; the projection of 12 does not lower it')
})

t.test('a release forgets the ids it counted; test events have their own counter (H33)', async (t) => {
  const q = new MonthlyQuota()
  const r = q.reserve('acc', ['a', 'b'], 10, MAR_10)
  q.release('acc', r, MAR_10)
  t.equal(q.used('acc', MAR_10), 0)
  t.equal(q.reserve('acc', ['a'], 10, MAR_10 + 1).charged, 1, 'a retry after a refused append is counted')
  const test = quotaCounter('acc', 'test')
  t.not(test, quotaCounter('acc', 'live'))
  t.equal(q.reserve(test, ['a', 'c', 'd'], 2, MAR_10).granted, 2)
  t.equal(q.used(test, MAR_10), 2)
  t.equal(q.used('acc', MAR_10), 1, 'the live counter is apart')
})

t.test('remembered ids are bounded in number', async (t) => {
  const q = new MonthlyQuota({ maxIds: 10 })
  for (let i = 0; i < 20; i++) q.reserve('acc', [`m${i}`], 1000, MAR_10)
  t.equal(q.reserve('acc', ['m19'], 1000, MAR_10).charged, 0, 'a recent id is remembered')
  t.equal(q.reserve('acc', ['m0'], 1000, MAR_10).charged, 1, 'the oldest were dropped')
})

t.test('months and reservations', async (t) => {
  const now = Date.UTC(2025, 11, 31, 23, 59, 59)
  const m = monthRange(now)
  t.same(m, {
    start: Date.UTC(2025, 11, 1),
    end: Date.UTC(2026, 0, 1),
    key: '2025-12',
    resetsAt: '2026-01-01T00:00:00.000Z',
  })
  t.same(reservationOf(45, 5, 50, now), {
    granted: 5,
    charged: 5,
    used: 50,
    limit: 50,
    resetsAt: '2026-01-01T00:00:00.000Z',
    retryAfterSeconds: 1,
  })
  t.equal(grantable(7, 45, 50), 5)
  t.equal(grantable(7, 60, 50), 0, 'a limit lowered below usage grants nothing')
  t.equal(grantable(-1, 0, 50), 0)
  t.equal(grantable(3, 0, 50), 3)
})

t.test(
  'admitIds: a counted id passes free, new items in order while the quota lasts, a repeat within the request as its first (H34)',
  async (t) => {
    const seen = new Set(['old'])
    const r = admitIds(['old', 'a', undefined, 'a', 'b', undefined, 'c', 'b', 'old'], (id) => seen.has(id), 3)
    t.same(r.accepted, [true, true, true, true, true, false, false, true, true])
    t.same([r.granted, r.charged, r.newIds], [7, 3, ['a', 'b']])
    const none = admitIds(['x', 'x', 'old'], (id) => seen.has(id), 0)
    t.same(none.accepted, [false, false, true], 'with nothing left only counted ids pass')
    t.same(
      admitIds(new Array(100).fill('m'), () => false, 5),
      { accepted: new Array(100).fill(true), granted: 100, charged: 1, newIds: ['m'] },
      '100 copies of one message: one counted',
    )
  },
)
