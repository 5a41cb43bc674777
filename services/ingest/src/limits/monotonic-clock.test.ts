import t from 'tap'
import { monotonicClock } from './monotonic-clock.js'

function fakeTime() {
  const s = { wall: 1_000_000, elapsed: 0 }
  const tick = (ms: number) => {
    s.wall += ms
    s.elapsed += ms
  }
  return {
    s,
    tick,
    clock: monotonicClock(
      () => s.wall,
      () => s.elapsed,
    ),
  }
}

t.test('follows the wall clock while it moves forward', async (t) => {
  const { s, tick, clock } = fakeTime()
  t.equal(clock(), 1_000_000)
  tick(250)
  t.equal(clock(), 1_000_250)
  s.wall += 5_000 // stepped forward: followed at once
  t.equal(clock(), 1_005_250)
})

t.test('a wall clock stepping back neither moves time back nor stops it', async (t) => {
  const { s, tick, clock } = fakeTime()
  t.equal(clock(), 1_000_000)
  s.wall -= 60_000 // one minute back
  t.equal(clock(), 1_000_000, 'not back')
  tick(1_500)
  t.equal(clock(), 1_001_500, 'carries on at the monotonic rate')
  tick(60_000)
  t.equal(clock(), 1_061_500)
  t.equal(s.wall, 1_001_500, 'the wall clock is still behind')
  s.wall += 70_000 // now past what was returned: followed again
  t.equal(clock(), 1_071_500)
})

t.test('returns whole milliseconds and never decreases', async (t) => {
  const s = { wall: 10, elapsed: 0.4 }
  const clock = monotonicClock(
    () => s.wall,
    () => s.elapsed,
  )
  let last = clock()
  for (let i = 0; i < 200; i++) {
    s.elapsed += 0.37
    if (i % 7 === 0) s.wall -= 3
    if (i % 11 === 0) s.wall += 5
    const v = clock()
    t.ok(Number.isInteger(v) && v >= last, `step ${i}: ${v} >= ${last}`)
    last = v
  }
})
