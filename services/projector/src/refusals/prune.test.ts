import t from 'tap'
import { oldestKeptDay } from './prune.js'

t.test('partitions before the day 7 days ago are dropped', async (t) => {
  t.equal(oldestKeptDay(Date.parse('2026-11-26T00:30:00Z')), '20261119')
  t.equal(oldestKeptDay(Date.parse('2026-03-05T23:59:59Z')), '20260226')
})
