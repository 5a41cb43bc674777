// The marks of the hours not counted yet (U25): their inserts, the hours as ranges of the sort key.
import t from 'tap'
import { closedBefore, hoursCondition, markRanges, markStatements, notTheseHours } from './dirty-hours.js'
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

t.test('marks are bound values, versioned, in inserts of bounded size', async (t) => {
  const [q] = markStatements('db1', [{ accountId: "a'b", hourMs: T }], 42, true)
  t.equal(
    q,
    "INSERT INTO db1.event_counts_dirty (account_id, hour, marked_ms, dirty) VALUES ('a\\'b', toDateTime('2024-05-10 08:00:00', 'UTC'), 42, 1)",
  )
  const many = Array.from({ length: 4001 }, (_, i) => ({ accountId: `acc_${i}`, hourMs: T }))
  const statements = markStatements('db1', many, 7, false)
  t.equal(statements.length, 3)
  for (const s of statements) t.ok(s.length < 200_000, `${s.length} characters`)
})
