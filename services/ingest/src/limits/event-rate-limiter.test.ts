import t from 'tap'
import { EventRateLimiter } from './event-rate-limiter.js'

const T0 = 1_700_000_000_000

t.test('takes events up to the per-second limit, all-or-nothing', async (t) => {
  const l = new EventRateLimiter()
  t.same(l.tryTake('acc', 600, 1000, T0), { allowed: true })
  t.same(l.tryTake('acc', 400, 1000, T0 + 100), { allowed: true }, 'exactly the limit')
  t.same(l.tryTake('acc', 1, 1000, T0 + 900), { allowed: false, limit: 1000, retryAfterSeconds: 1 })
})

t.test('a refused batch consumes nothing', async (t) => {
  const l = new EventRateLimiter()
  l.tryTake('acc', 950, 1000, T0)
  t.equal(l.tryTake('acc', 100, 1000, T0 + 1).allowed, false, '950 + 100 > 1000: whole batch refused')
  t.equal(l.tryTake('acc', 50, 1000, T0 + 2).allowed, true, 'the refused 100 were not counted')
  t.equal(l.tryTake('acc', 1, 1000, T0 + 3).allowed, false)
})

t.test('the next second starts afresh; accounts are separate', async (t) => {
  const l = new EventRateLimiter()
  t.equal(l.tryTake('a', 10, 10, T0 + 999).allowed, true)
  t.equal(l.tryTake('a', 1, 10, T0 + 999).allowed, false)
  t.equal(l.tryTake('b', 10, 10, T0 + 999).allowed, true)
  t.equal(l.tryTake('a', 10, 10, T0 + 1000).allowed, true)
})

t.test('zero events always pass; a batch larger than the limit never does', async (t) => {
  const l = new EventRateLimiter()
  l.tryTake('a', 5, 5, T0)
  t.equal(l.tryTake('a', 0, 5, T0).allowed, true)
  t.equal(l.tryTake('b', 6, 5, T0).allowed, false)
})
