// The one month-grouping rule of every insert (U28): at most MONTHS_PER_INSERT months of each time.
import t from 'tap'
import { monthGroups, monthIndex, MONTHS_PER_INSERT, nextMonthStart } from './month-groups.js'

// The 15th of the n-th month after January 1970, at noon UTC.
const month = (n: number) => Date.UTC(1970, n, 15, 12)

t.test('monthIndex is the UTC calendar month, as toYYYYMM partitions', async (t) => {
  t.equal(monthIndex(0), 1970 * 12)
  t.equal(monthIndex(-1), 1970 * 12, 'a DateTime holds nothing before 1970')
  t.equal(monthIndex(Date.UTC(1970, 0, 31, 23, 59, 59, 999)), 1970 * 12)
  t.equal(monthIndex(Date.UTC(1970, 1, 1)), 1970 * 12 + 1)
  t.equal(monthIndex(Date.UTC(2105, 11, 31, 23, 59, 59)), 2105 * 12 + 11)
  t.equal(nextMonthStart(Date.UTC(2024, 11, 31, 23)), Date.UTC(2025, 0, 1))
  t.equal(nextMonthStart(Date.UTC(2024, 1, 1)), Date.UTC(2024, 2, 1))
})

t.test('a long history is cut into groups of at most MONTHS_PER_INSERT months, in order', async (t) => {
  const times = Array.from({ length: 200 }, (_, i) => month(i))
  const groups = monthGroups(times, [monthIndex])
  t.same(
    groups.map((g) => g.length),
    [MONTHS_PER_INSERT, MONTHS_PER_INSERT, MONTHS_PER_INSERT, 200 - 3 * MONTHS_PER_INSERT],
  )
  t.same(groups.flat(), times, 'every item once, in order')
  t.same(monthGroups([1, 2, 3], [() => 0]), [[1, 2, 3]], 'one month is one group')
  t.same(monthGroups([], [monthIndex]), [])
})

t.test('each of several months is bounded, and a month seen already never cuts', async (t) => {
  // [event month, receipt month]: the receipt months reach the limit of 2 first.
  const items = [
    [0, 0],
    [0, 1],
    [1, 1],
    [1, 2],
    [0, 2],
  ] as const
  t.same(monthGroups(items, [(x) => x[0], (x) => x[1]], 2), [
    [
      [0, 0],
      [0, 1],
      [1, 1],
    ],
    [
      [1, 2],
      [0, 2],
    ],
  ])
})
