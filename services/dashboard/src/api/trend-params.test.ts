import t from 'tap'
import { trendSpecOf, type TrendQuery } from './trend-params.js'

const now = Date.parse('2024-05-15T12:00:00Z')
const query = (over: Partial<TrendQuery> = {}): TrendQuery => ({
  filters: [],
  custom: () => ({ from: new Date('2024-05-01T00:00:00Z'), to: new Date('2024-05-03T00:00:00Z') }),
  ...over,
})

t.test('periods, the comparison period and filters', async (t) => {
  const d = trendSpecOf(query({ period: '24h', interval: 'hour', filters: ['plan=pro', 'q=a=b'] }), now)
  t.equal(d.current.from.toISOString(), '2024-05-14T12:00:00.000Z')
  t.equal(d.previous.from.toISOString(), '2024-05-13T12:00:00.000Z')
  t.equal(d.previous.to.toISOString(), '2024-05-14T12:00:00.000Z')
  t.same(d.current.filters, [
    { key: 'plan', value: 'pro' },
    { key: 'q', value: 'a=b' },
  ])
  const c = trendSpecOf(query({ period: 'custom' }), now)
  t.equal(c.previous.from.toISOString(), '2024-04-29T00:00:00.000Z', 'custom: the two days before')
  t.equal(trendSpecOf(query(), now).current.interval, 'day', 'day over 7 days by default')
})

t.test('refused parameters', async (t) => {
  t.throws(() => trendSpecOf(query({ period: '1y' }), now), { code: 'VALIDATION_ERROR' })
  t.throws(() => trendSpecOf(query({ interval: 'minute' }), now), { code: 'VALIDATION_ERROR' })
  t.throws(() => trendSpecOf(query({ filters: ['novalue'] }), now), { code: 'VALIDATION_ERROR' })
  t.throws(() => trendSpecOf(query({ filters: ['=x'] }), now), { code: 'VALIDATION_ERROR' })
  t.throws(() => trendSpecOf(query({ filters: ['a=1', 'b=1', 'c=1', 'd=1', 'e=1', 'f=1'] }), now), {
    code: 'VALIDATION_ERROR',
  })
})

t.test('a breakdown by a trait (U27)', async (t) => {
  t.equal(trendSpecOf(query({ breakdownTrait: 'plan' }), now).current.breakdownTrait, 'plan')
  t.equal(trendSpecOf(query({ breakdownTrait: 'plan' }), now).previous.breakdownTrait, 'plan', 'compared alike')
  t.throws(() => trendSpecOf(query({ breakdown: 'plan', breakdownTrait: 'plan' }), now), {
    code: 'VALIDATION_ERROR',
    message: /one at a time/,
  })
  t.throws(() => trendSpecOf(query({ breakdownTrait: 'k'.repeat(256) }), now), { code: 'VALIDATION_ERROR' })
})
