// The marks of the hours not counted yet (U25): their inserts, the hours as ranges of the sort key.
import t from 'tap'
import { closedBefore, closedDirtySql, hoursCondition, markRanges, notTheseHours } from './dirty-hours.js'
import { HOUR_MS } from './event-counts.js'

const T = Date.UTC(2024, 4, 10, 8)

t.test('an hour closes five minutes after it ends', async (t) => {
  t.equal(closedBefore(T + HOUR_MS + 4 * 60_000), T, 'at 09:04 08:00 is still open')
  t.equal(closedBefore(T + HOUR_MS + 5 * 60_000), T + HOUR_MS, 'at 09:05 it is closed')
})

t.test('marks join into ranges per account; hours into timestamp ranges', async (t) => {
  const marks = [
    { accountId: 'b', hourMs: T },
    { accountId: 'a', hourMs: T + HOUR_MS },
    { accountId: 'a', hourMs: T },
    { accountId: 'a', hourMs: T + 3 * HOUR_MS },
  ]
  t.same(markRanges(marks), [
    { accountId: 'a', fromMs: T, toMs: T + 2 * HOUR_MS },
    { accountId: 'a', fromMs: T + 3 * HOUR_MS, toMs: T + 4 * HOUR_MS },
    { accountId: 'b', fromMs: T, toMs: T + HOUR_MS },
  ])
  t.equal(
    hoursCondition([T, T + HOUR_MS]),
    "((timestamp >= toDateTime('2024-05-10 08:00:00', 'UTC') AND timestamp < toDateTime('2024-05-10 10:00:00', 'UTC')))",
  )
  t.equal(hoursCondition([]), '0', 'no dirty hour reads no event')
  t.equal(notTheseHours([T]), `toUInt32(hour) NOT IN (${T / 1000})`)
  t.equal(notTheseHours([]), '1')
})

t.test('the recount reads the closed hours whose latest mark is dirty and a minute old', async (t) => {
  const q = closedDirtySql('db1', T + HOUR_MS + 5 * 60_000)
  t.match(q, "WHERE hour < toDateTime('2024-05-10 09:00:00', 'UTC')")
  t.match(q, 'HAVING max(marked_ms * 2 + dirty) % 2 = 1')
  t.match(q, `max(marked_ms) <= ${T + HOUR_MS + 4 * 60_000}`)
})
