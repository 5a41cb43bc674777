import t from 'tap'
import { refusedSpecOf } from './refused-routes.js'
import { refusedCountsSql, refusedSamplesSql, totalsByCode } from './refused-queries.js'

const now = Date.parse('2026-11-26T12:34:56Z')

t.test('period and interval become a range ending after the current minute', async (t) => {
  const s = refusedSpecOf({ samples: 20 }, now)
  t.equal(s.to.toISOString(), '2026-11-26T12:35:00.000Z')
  t.equal(s.from.toISOString(), '2026-11-25T12:35:00.000Z')
  t.equal(s.interval, 'hour')
  t.equal(refusedSpecOf({ period: '7d', samples: 20 }, now).from.toISOString(), '2026-11-19T12:35:00.000Z')
  t.equal(refusedSpecOf({ period: '24h', interval: 'minute', samples: 5 }, now).interval, 'minute')
})

t.test('refused parameters are 400 VALIDATION_ERROR', async (t) => {
  for (const p of [{ period: '30d' }, { interval: 'day' }, { period: '7d', interval: 'minute' }])
    t.throws(
      () => refusedSpecOf({ ...p, samples: 20 }, now),
      { code: 'VALIDATION_ERROR', status: 400 },
      JSON.stringify(p),
    )
})

t.test('the queries read the account with FINAL and bind every value', async (t) => {
  const s = refusedSpecOf({ samples: 7, environment: 'test' }, now)
  const counts = refusedCountsSql('db', "acc'1", s)
  t.match(counts, /FROM `?db`?\.`?refusals_by_minute`? FINAL/)
  t.match(counts, /account_id = 'acc\\'1'/)
  t.match(counts, /environment = 'test'/)
  const samples = refusedSamplesSql('db', 'acc_1', s)
  t.match(samples, /refused_samples`? FINAL/)
  t.match(samples, /LIMIT 7$/)
})

t.test('totals by code, the largest first', async (t) => {
  t.same(
    totalsByCode([
      { time: 'a', code: 'B', count: 2 },
      { time: 'a', code: 'A', count: 1 },
      { time: 'b', code: 'A', count: 3 },
    ]),
    [
      { code: 'A', count: 4 },
      { code: 'B', count: 2 },
    ],
  )
})
