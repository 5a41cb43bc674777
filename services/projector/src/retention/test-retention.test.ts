import t from 'tap'
import { retentionCutoff } from './test-retention.js'

t.test('the cutoff is the start of the UTC day `days` ago, the same all day', async (t) => {
  const day = Date.UTC(2026, 10, 26)
  t.equal(retentionCutoff(30, day + 5 * 3600_000), Date.UTC(2026, 9, 27) / 1000)
  t.equal(retentionCutoff(30, day + 23 * 3600_000), Date.UTC(2026, 9, 27) / 1000)
  t.equal(retentionCutoff(1, day), Date.UTC(2026, 10, 25) / 1000)
})
