// The hours a batch touched (U19): one range per run of consecutive hours of an account.
import t from 'tap'
import {
  ACCOUNTS_PER_STATEMENT,
  byMonths,
  HOUR_MS,
  MONTHS_PER_INSERT,
  rebuildStatements,
  splitAtMonths,
  touchedHours,
} from './event-counts.js'

const T = Date.UTC(2024, 4, 10, 8)

t.test('consecutive hours join, gaps and accounts split', async (t) => {
  const ranges = touchedHours([
    { account_id: 'a', timestamp: T + 2 * HOUR_MS + 5 },
    { account_id: 'a', timestamp: T + 1 },
    { account_id: 'b', timestamp: T + 10 },
    { account_id: 'a', timestamp: T + HOUR_MS - 1 },
    { account_id: 'a', timestamp: T + HOUR_MS },
    { account_id: 'a', timestamp: T + 5 * HOUR_MS },
  ])
  t.same(ranges, [
    { accountId: 'a', fromMs: T, toMs: T + 3 * HOUR_MS },
    { accountId: 'a', fromMs: T + 5 * HOUR_MS, toMs: T + 6 * HOUR_MS },
    { accountId: 'b', fromMs: T, toMs: T + HOUR_MS },
  ])
})

t.test('the rebuild reads events FINAL over the ranges, values bound', async (t) => {
  const [q, more] = rebuildStatements('db1', [{ accountId: "a'b", fromMs: T, toMs: T + HOUR_MS }])
  t.equal(more, undefined)
  t.match(q, /^INSERT INTO db1\.event_counts_hourly/)
  t.match(q, /FROM db1\.events FINAL/)
  t.match(q, "account_id IN ('a\\'b') AND timestamp >= toDateTime('2024-05-10 08:00:00', 'UTC')")
})

t.test('a batch of many accounts: one clause per hour span, statements below the server query size', async (t) => {
  const n = 2 * ACCOUNTS_PER_STATEMENT + 1
  const records = Array.from({ length: n }, (_, i) => ({ account_id: `acc_${i}_${'x'.repeat(24)}`, timestamp: T + i }))
  const statements = rebuildStatements('db1', touchedHours(records))
  t.equal(statements.length, 3)
  for (const q of statements) t.ok(q.length < 100_000, `${q.length} characters`)
  t.equal(statements.join('').split('acc_').length - 1, n, 'every account once')
})

t.test('a long history is recounted in inserts of at most MONTHS_PER_INSERT months (H26, code 252)', async (t) => {
  const HOUR = 3_600_000
  const jan = Date.UTC(2024, 0, 31, 23)
  t.same(
    splitAtMonths([{ accountId: 'a', fromMs: jan, toMs: jan + 2 * HOUR }]),
    [
      { accountId: 'a', fromMs: jan, toMs: jan + HOUR },
      { accountId: 'a', fromMs: jan + HOUR, toMs: jan + 2 * HOUR },
    ],
    'a range across a month boundary is cut there',
  )
  const months = Array.from({ length: 200 }, (_, i) => Date.UTC(1970 + Math.floor(i / 12), i % 12, 15))
  const groups = byMonths(months, (ms) => ms)
  t.same(
    groups.map((g) => g.length),
    [MONTHS_PER_INSERT, MONTHS_PER_INSERT, MONTHS_PER_INSERT, 200 - 3 * MONTHS_PER_INSERT],
  )
  t.same(groups.flat(), months, 'every item once, in order')
  t.same(
    byMonths([1, 2, 3], () => 0),
    [[1, 2, 3]],
    'one month is one group',
  )
})
