import t from 'tap'
import { LimiterFallback, type FallbackChange } from './limiter-fallback.js'

t.test('a failure switches to local once; probes once per retry interval; a success switches back', async (t) => {
  const changes: FallbackChange[] = []
  const f = new LimiterFallback(1000, (c) => changes.push(c))
  t.equal(f.mode, 'redis')
  t.equal(f.shouldTry(0), true)
  f.succeeded(0)
  t.same(changes, [], 'no change while Redis answers')

  f.failed(10, 'Command timed out')
  f.failed(11, 'Command timed out') // calls in flight when it died fail too
  t.equal(f.mode, 'local')
  t.same(changes, [{ mode: 'local', reason: 'Command timed out' }], 'one transition logged, not one per call')
  t.equal(f.fallbacks, 2)
  t.match(f.describe(), /since 1970-01-01T00:00:00.010Z \(Command timed out\)/)

  t.equal(f.shouldTry(500), false, 'between probes Redis is not asked')
  f.skipped()
  t.equal(f.fallbacks, 3)
  t.equal(f.shouldTry(1010), true, 'the probe after retryMs')
  t.equal(f.shouldTry(1011), false, 'only one probe per interval')
  f.failed(1010, 'connection is closed')
  t.equal(f.mode, 'local')
  t.equal(changes.length, 1, 'a failed probe is not a new transition')
  t.equal(f.shouldTry(1500), false, 'the failed probe pushed the next one back')
  t.equal(f.shouldTry(2010), true)

  f.succeeded(2010)
  t.equal(f.mode, 'redis')
  t.same(changes[1], { mode: 'redis' })
  t.equal(f.describe(), 'limits shared in Redis')
})

t.test('a late answer to a call sent before Redis was given up does not switch back', async (t) => {
  const f = new LimiterFallback(1000)
  f.failed(100, 'Command timed out')
  f.succeeded(90)
  t.equal(f.mode, 'local')
  f.succeeded(100)
  t.equal(f.mode, 'redis')
})

t.test('probeNow lets the next call try at once (the connection is back)', async (t) => {
  const f = new LimiterFallback(60_000)
  f.failed(0, 'x')
  t.equal(f.shouldTry(5), false)
  f.probeNow()
  t.equal(f.shouldTry(6), true)
  t.equal(f.shouldTry(7), false)
})
