import t from 'tap'
import { backoffDelay, retry, type RetryPolicy } from './retry.js'

/** A fake sleep that records each wait and returns at once: the policy runs on no real time. */
const fakeTime = () => {
  const waits: number[] = []
  return { waits, sleep: async (ms: number) => void waits.push(ms) }
}

/** fn failing `n` times with `err`, then answering 'done'. */
const failing = (n: number, err: unknown = new Error('down')) => {
  let calls = 0
  const seen: number[] = []
  const fn = async (failures: number) => {
    seen.push(failures)
    if (calls++ < n) throw err
    return 'done'
  }
  return { fn, seen, calls: () => calls }
}

t.test('backoff doubles from initialMs up to maxMs; jitter keeps the upper half', async (t) => {
  const exact = { initialMs: 200, maxMs: 5_000, jitter: false }
  const delays = [1, 2, 3, 4, 5, 6, 7, 5000].map((n) => backoffDelay(n, exact))
  t.same(delays, [200, 400, 800, 1600, 3200, 5000, 5000, 5000], 'no overflow after many failures either')
  const jittered = { initialMs: 100, maxMs: 1_000 }
  // [failures, the random draw, the delay]: at least half the base, at most the base.
  const drawn = [
    [2, 0, 100],
    [2, 1, 200],
    [9, 0.5, 750],
  ]
  t.same(
    drawn.map(([n, r]) => backoffDelay(n!, jittered, () => r!)),
    drawn.map(([, , d]) => d),
  )
})

t.test('retries until fn answers, waiting the backoff between attempts on injected time', async (t) => {
  const time = fakeTime()
  const f = failing(3)
  const told: Array<[number, number]> = []
  const value = await retry(f.fn, {
    initialMs: 10,
    maxMs: 25,
    jitter: false,
    sleep: time.sleep,
    onRetry: (_err, failures, delayMs) => told.push([failures, delayMs]),
  })
  t.equal(value, 'done')
  t.same(f.seen, [0, 1, 2, 3], 'fn is told the failures before each call')
  t.same(time.waits, [10, 20, 25])
  t.same(told, [
    [1, 10],
    [2, 20],
    [3, 25],
  ])
})

t.test('a failure retryIf refuses is thrown at once; by default programmer errors and retriable: false', async (t) => {
  const time = fakeTime()
  const base: RetryPolicy = { initialMs: 1, maxMs: 1, sleep: time.sleep }
  const bug = failing(1, new TypeError('bug'))
  await t.rejects(retry(bug.fn, base), TypeError)
  t.equal(bug.calls(), 1)
  const permanent = failing(1, Object.assign(new Error('bad schema'), { retriable: false }))
  await t.rejects(retry(permanent.fn, base), /bad schema/)
  t.equal(permanent.calls(), 1)
  const everything = failing(2, new TypeError('still retried'))
  t.equal(await retry(everything.fn, { ...base, retryIf: () => true }), 'done', 'a caller may retry everything')
  t.same(time.waits, [1, 1])
})

t.test('giveUp ends the loop with the error it returns, before any wait', async (t) => {
  const time = fakeTime()
  const f = failing(10)
  const cause = new Error('down')
  class Exhausted extends Error {}
  await t.rejects(
    retry(f.fn, {
      initialMs: 5,
      maxMs: 100,
      jitter: false,
      sleep: time.sleep,
      giveUp: (_err, failures) => (failures > 2 ? new Exhausted(`after ${failures}`, { cause }) : undefined),
    }),
    new Exhausted('after 3'),
  )
  t.equal(f.calls(), 3, 'two retries')
  t.same(time.waits, [5, 10])
})
