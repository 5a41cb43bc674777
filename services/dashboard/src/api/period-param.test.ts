import t from 'tap'
import { periodRange } from './period-param.js'
import { retentionSpecOf } from './retention-params.js'
import { trendSpecOf } from './trend-params.js'

const now = Date.parse('2024-05-15T12:00:00Z')
const custom = () => ({ from: new Date(1), to: new Date(2) })

t.test('a named period ends now and lasts its length; custom is read by the page', async (t) => {
  const r = periodRange('2d', { '2d': 2 * 86_400_000 }, now, custom)
  t.equal(r.from.toISOString(), '2024-05-13T12:00:00.000Z')
  t.equal(r.to.toISOString(), '2024-05-15T12:00:00.000Z')
  t.same(periodRange('custom', {}, now, custom), custom())
})

t.test('Trends and Retention refuse a name that is not theirs, inherited names too', async (t) => {
  for (const period of ['1y', 'toString', 'constructor', '8w']) {
    t.throws(() => trendSpecOf({ period, filters: [], custom }, now), {
      code: 'VALIDATION_ERROR',
      message: 'period must be 24h, 7d, 30d or custom',
    })
  }
  for (const period of ['1y', 'toString', '7d']) {
    t.throws(() => retentionSpecOf({ period, custom }, now), {
      code: 'VALIDATION_ERROR',
      message: 'period must be 4w, 8w, 12w or custom',
    })
  }
  t.equal(retentionSpecOf({ period: '4w', custom }, now).from.toISOString(), '2024-04-17T12:00:00.000Z')
})
