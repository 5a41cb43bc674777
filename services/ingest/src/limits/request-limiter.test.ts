import t from 'tap'
import { MemoryLimiterStore } from './limiter-store.js'
import { RequestLimiter, accountBucket, ipBucket } from './request-limiter.js'

const MIN = 60_000
const T0 = 1_700_000_040_000 // 28333334 * 60000: a minute boundary

t.test('allows up to the limit in a window, then denies with remaining 0', async (t) => {
  const rl = new RequestLimiter()
  const b = accountBucket('acc1')
  for (let i = 1; i <= 3; i++) {
    const r = rl.check(b, 3, T0 + i)
    t.equal(r.allowed, true)
    t.equal(r.remaining, 3 - i)
    t.equal(r.limit, 3)
    t.equal(r.retryAfterSeconds, 0)
    t.equal(r.resetSeconds, (T0 + MIN) / 1000)
  }
  for (let i = 0; i < 5; i++) {
    const r = rl.check(b, 3, T0 + 15_500)
    t.equal(r.allowed, false)
    t.equal(r.remaining, 0, 'remaining never negative')
    t.equal(r.retryAfterSeconds, 45, '44.5 s left, rounded up')
    t.equal(r.resetSeconds, (T0 + MIN) / 1000)
  }
})

t.test('denied requests do not consume: the bucket does not pass the limit', async (t) => {
  const store = new MemoryLimiterStore()
  const rl = new RequestLimiter(store)
  for (let i = 0; i < 10; i++) rl.check('a:x', 4, T0)
  t.equal(store.get('a:x', T0), 4)
})

t.test('fixed windows: a new minute starts afresh', async (t) => {
  const rl = new RequestLimiter()
  t.equal(rl.check('a:x', 1, T0 + MIN - 1).allowed, true)
  const denied = rl.check('a:x', 1, T0 + MIN - 1)
  t.equal(denied.allowed, false)
  t.equal(denied.retryAfterSeconds, 1, 'at least 1 second')
  const next = rl.check('a:x', 1, T0 + MIN)
  t.equal(next.allowed, true, 'rollover')
  t.equal(next.remaining, 0)
  t.equal(next.resetSeconds, (T0 + 2 * MIN) / 1000)
})

t.test('all keys of an account share one bucket; accounts and IPs are separate', async (t) => {
  const rl = new RequestLimiter()
  // two keys of account A both map to accountBucket('A')
  t.equal(rl.check(accountBucket('A'), 2, T0).remaining, 1)
  t.equal(rl.check(accountBucket('A'), 2, T0 + 1).remaining, 0)
  t.equal(rl.check(accountBucket('A'), 2, T0 + 2).allowed, false, "the second key's request hits the shared limit")
  t.equal(rl.check(accountBucket('B'), 2, T0 + 3).remaining, 1)
  t.equal(rl.check(ipBucket('A'), 2, T0 + 4).remaining, 1, 'an IP bucket never collides with an account bucket')
})

t.test('peek reports without counting', async (t) => {
  const rl = new RequestLimiter()
  rl.check('ip:1.2.3.4', 100, T0)
  const p = rl.peek('ip:1.2.3.4', 100, T0 + 10)
  t.equal(p.remaining, 99)
  t.equal(rl.peek('ip:1.2.3.4', 100, T0 + 10).remaining, 99)
  t.equal(rl.peek('ip:1.2.3.4', 100, T0 + MIN).remaining, 100, 'next window')
})

t.test('a limit of 0 denies everything', async (t) => {
  const r = new RequestLimiter().check('a:z', 0, T0)
  t.equal(r.allowed, false)
  t.equal(r.remaining, 0)
})
