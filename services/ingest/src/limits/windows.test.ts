import t from 'tap'
import {
  admitIds,
  eventRateResult,
  grantable,
  monthRange,
  peekResult,
  requestResult,
  reservationOf,
  windowStart,
} from './windows.js'

const T0 = 1_700_000_040_000 // a minute boundary
const MIN = 60_000

t.test('windows are fixed and aligned to the epoch', async (t) => {
  t.equal(windowStart(T0 + 59_999, MIN), T0)
  t.equal(windowStart(T0 + MIN, MIN), T0 + MIN)
  t.equal(windowStart(T0 + 1234, 1000), T0 + 1000)
})

t.test('the per-minute answer from the count before the request', async (t) => {
  t.same(requestResult(0, 100, T0 + 1000, MIN), {
    allowed: true,
    limit: 100,
    remaining: 99,
    resetSeconds: (T0 + MIN) / 1000,
    retryAfterSeconds: 0,
  })
  t.same(
    requestResult(99, 100, T0 + 1000, MIN),
    { allowed: true, limit: 100, remaining: 0, resetSeconds: (T0 + MIN) / 1000, retryAfterSeconds: 0 },
    'the 100th',
  )
  t.same(
    requestResult(100, 100, T0 + 15_500, MIN),
    { allowed: false, limit: 100, remaining: 0, resetSeconds: (T0 + MIN) / 1000, retryAfterSeconds: 45 },
    '44.5 s left, rounded up',
  )
  t.equal(requestResult(100, 100, T0 + MIN - 1, MIN).retryAfterSeconds, 1, 'at least 1 s')
  t.same(peekResult(40, 100, T0, MIN), {
    allowed: true,
    limit: 100,
    remaining: 60,
    resetSeconds: (T0 + MIN) / 1000,
    retryAfterSeconds: 0,
  })
  t.equal(peekResult(100, 100, T0 + 30_000, MIN).retryAfterSeconds, 30)
})

t.test('the per-second answer: all or nothing', async (t) => {
  t.same(eventRateResult(900, 100, 1000, T0 + 10, 1000), { allowed: true })
  t.same(eventRateResult(901, 100, 1000, T0 + 10, 1000), { allowed: false, limit: 1000, retryAfterSeconds: 1 })
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
