// The projector's ClickHouse write policy on the shared loop (H68): a bounded number of retries,
// then RetriesExhaustedError with the last failure as its cause; stopping gives up at once.
import t from 'tap'
import { RetriesExhaustedError, withRetry } from './retry.js'

const failing = (n: number, err: unknown = new Error('clickhouse down')) => {
  let calls = 0
  return {
    fn: async () => {
      if (calls++ < n) throw err
      return 'written'
    },
    calls: () => calls,
  }
}
// 1 ms delays: the policy is what is tested, not the wait (the loop's waits: shared/src/retry.test.ts).
const FAST = { initialMs: 1, maxMs: 1 }

t.test('retries up to `retries` times, telling each retry', async (t) => {
  const f = failing(2)
  const told: number[] = []
  t.equal(await withRetry(f.fn, { ...FAST, retries: 2, onRetry: (_e, attempt) => told.push(attempt) }), 'written')
  t.equal(f.calls(), 3)
  t.same(told, [1, 2])
})

t.test('past the retries: RetriesExhaustedError, retriable, with the attempts and the last failure', async (t) => {
  const cause = new Error('clickhouse down')
  const f = failing(10, cause)
  const err = await withRetry(f.fn, { ...FAST, retries: 2 }).catch((e: unknown) => e)
  t.type(err, RetriesExhaustedError)
  t.match(err, { code: 'RETRIES_EXHAUSTED', attempts: 3, retriable: true, cause })
  t.equal(f.calls(), 3)
})

t.test('stopping gives up after the failure in hand; programmer errors are not retried', async (t) => {
  const stopping = failing(10)
  await t.rejects(withRetry(stopping.fn, { ...FAST, retries: 5, signal: { aborted: true } }), RetriesExhaustedError)
  t.equal(stopping.calls(), 1)
  const bug = failing(10, new TypeError('bug'))
  await t.rejects(withRetry(bug.fn, { ...FAST, retries: 5 }), TypeError)
  t.equal(bug.calls(), 1)
})
