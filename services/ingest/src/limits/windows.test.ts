import t from 'tap'
import { eventRateResult, peekResult, requestResult, windowStart } from './windows.js'

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
