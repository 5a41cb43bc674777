import t from 'tap'
import { MemoryLimiterStore } from './limiter-store.js'

t.test('incr counts within a window and restarts at the next', async (t) => {
  const s = new MemoryLimiterStore()
  t.equal(s.incr('k', 0, 1000, 1, 10), 1)
  t.equal(s.incr('k', 0, 1000, 3, 20), 4)
  t.equal(s.get('k', 0), 4)
  t.equal(s.incr('k', 1000, 1000, 1, 1000), 1, 'new window starts from zero')
  t.equal(s.get('k', 0), 0, 'the old window is gone')
  t.equal(s.get('k', 1000), 1)
  t.equal(s.get('other', 1000), 0)
})

t.test('take adds only while the count stays within max and returns the count before', async (t) => {
  const s = new MemoryLimiterStore()
  t.equal(s.take('k', 0, 1000, 3, 5, 0), 0)
  t.equal(s.get('k', 0), 3)
  t.equal(s.take('k', 0, 1000, 3, 5, 1), 3, 'refused: 3 + 3 > 5')
  t.equal(s.get('k', 0), 3, 'a refused take consumes nothing')
  t.equal(s.take('k', 0, 1000, 2, 5, 2), 3)
  t.equal(s.get('k', 0), 5)
  t.equal(s.take('k', 0, 1000, 1, 5, 3), 5)
  t.equal(s.get('k', 0), 5, 'never passes max')
})

t.test('a call for a window older than the one held does not reset it', async (t) => {
  const s = new MemoryLimiterStore()
  s.incr('k', 2000, 1000, 4, 2000)
  t.equal(s.take('k', 1000, 1000, 1, 1, 1999), 4, 'answered from the held window: refused')
  t.equal(s.get('k', 2000), 4)
})

t.test('a clock stepping back is counted in the held window, never let through', async (t) => {
  const s = new MemoryLimiterStore()
  t.equal(s.take('k', 60_000, 60_000, 1, 3, 60_000), 0)
  // the clock steps back one minute: three more requests with the old window's start
  t.equal(s.take('k', 0, 60_000, 1, 3, 59_000), 1)
  t.equal(s.take('k', 0, 60_000, 1, 3, 59_001), 2)
  t.equal(s.take('k', 0, 60_000, 1, 3, 59_002), 3, 'the fourth is refused: 3 + 1 > 3')
  t.equal(s.get('k', 60_000), 3)
  t.equal(s.incr('k', 0, 60_000, 2, 59_003), 5, 'incr counts there too')
})

t.test('expired windows are evicted lazily, so memory stays bounded', async (t) => {
  const s = new MemoryLimiterStore({ sweepPerCall: 2 })
  for (let i = 0; i < 1000; i++) s.incr(`ip:${i}`, 0, 60_000, 1, 0)
  t.equal(s.size, 1000)
  // one busy key in later windows; every call sweeps two entries
  let now = 60_000
  for (let i = 0; i < 600; i++) s.incr('busy', now - (now % 60_000), 60_000, 1, now++)
  t.ok(s.size <= 2, `expired keys dropped, size ${s.size}`)
  t.equal(s.get('busy', 60_000), 600, 'live window untouched by the sweep')
})

t.test('entries whose window has not ended are kept', async (t) => {
  const s = new MemoryLimiterStore({ sweepPerCall: 4 })
  for (let i = 0; i < 50; i++) s.incr(`k${i}`, 0, 60_000, 1, 0)
  for (let i = 0; i < 200; i++) s.incr('k0', 0, 60_000, 1, 59_999)
  t.equal(s.size, 50)
  t.equal(s.get('k49', 0), 1)
})
