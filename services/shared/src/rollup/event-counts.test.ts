// The recount's statements over the hours to count (U19), cut by month (U28).
import t from 'tap'
import { markRanges } from './dirty-hours.js'
import { ACCOUNTS_PER_STATEMENT, HOUR_MS, rebuildStatements, splitAtMonths } from './event-counts.js'

const T = Date.UTC(2024, 4, 10, 8)

t.test('the rebuild reads events FINAL over the ranges, values bound', async (t) => {
  const [q, more] = rebuildStatements('db1', [{ accountId: "a'b", fromMs: T, toMs: T + HOUR_MS }])
  t.equal(more, undefined)
  t.match(q, /^INSERT INTO db1\.event_counts_hourly/)
  t.match(q, /FROM db1\.events FINAL/)
  t.match(q, "account_id IN ('a\\'b') AND timestamp >= toDateTime('2024-05-10 08:00:00', 'UTC')")
})

t.test('a batch of many accounts: one clause per hour span, statements below the server query size', async (t) => {
  const n = 2 * ACCOUNTS_PER_STATEMENT + 1
  const marks = Array.from({ length: n }, (_, i) => ({ accountId: `acc_${i}_${'x'.repeat(24)}`, hourMs: T }))
  const statements = rebuildStatements('db1', markRanges(marks))
  t.equal(statements.length, 3)
  for (const q of statements) t.ok(q.length < 100_000, `${q.length} characters`)
  t.equal(statements.join('').split('acc_').length - 1, n, 'every account once')
})

t.test('a range across a month boundary is cut there (one partition each, U28)', async (t) => {
  const jan = Date.UTC(2024, 0, 31, 23)
  t.same(splitAtMonths([{ accountId: 'a', fromMs: jan, toMs: jan + 2 * HOUR_MS }]), [
    { accountId: 'a', fromMs: jan, toMs: jan + HOUR_MS },
    { accountId: 'a', fromMs: jan + HOUR_MS, toMs: jan + 2 * HOUR_MS },
  ])
  t.same(splitAtMonths([{ accountId: 'a', fromMs: jan, toMs: jan + HOUR_MS }]), [
    { accountId: 'a', fromMs: jan, toMs: jan + HOUR_MS },
  ])
})
