import t from 'tap'
import {
  MAX_RETENTION_MONTHS,
  RetentionRules,
  expiredMonthKeys,
  retentionCutoff,
  retentionProblem,
} from './retention.js'

t.test('the cutoff is the start of the same UTC day, months earlier', async (t) => {
  const now = Date.UTC(2026, 10, 26, 18, 30)
  t.equal(retentionCutoff(1, now), Date.UTC(2026, 9, 26))
  t.equal(retentionCutoff(12, now), Date.UTC(2025, 10, 26))
  t.equal(retentionCutoff(25, now), Date.UTC(2024, 9, 26))
  t.equal(retentionCutoff(0, now), undefined, '0 keeps everything')
})

t.test('a day the earlier month lacks becomes its last day', async (t) => {
  t.equal(retentionCutoff(1, Date.UTC(2026, 2, 31, 12)), Date.UTC(2026, 1, 28))
  t.equal(retentionCutoff(1, Date.UTC(2024, 2, 30)), Date.UTC(2024, 1, 29))
})

t.test('what an account can set', async (t) => {
  for (const ok of [0, 1, 12, 25, MAX_RETENTION_MONTHS]) t.equal(retentionProblem(ok), undefined, String(ok))
  for (const bad of [-1, 1.5, MAX_RETENTION_MONTHS + 1, '12', null])
    t.type(retentionProblem(bad), 'string', String(bad))
})

t.test('rules follow the latest account record', async (t) => {
  const r = new RetentionRules()
  const now = Date.UTC(2026, 10, 26)
  r.apply({ account_id: 'a', retention_months: 12 })
  r.apply({ account_id: 'b' })
  t.equal(r.size, 1)
  t.equal(r.cutoffOf('a', now), Date.UTC(2025, 10, 26))
  t.equal(r.cutoffOf('b', now), undefined)
  r.apply({ account_id: 'a', retention_months: 0 })
  t.equal(r.cutoffOf('a', now), undefined, 'back to for ever')
  t.same(r.cutoffs(now), [])
})

t.test('A23: the keys of the months wholly before the cutoff, of that account only', async (t) => {
  const id = (account: string, month: string) => `${account}\u0000p1\u0000${month}\u0000sdeadbeef`
  const expired = expiredMonthKeys('acme', Date.UTC(2026, 9, 26))
  t.ok(expired(id('acme', '2026-09')), 'the month before the cutoff')
  t.ok(expired(id('acme', '2024-01')), 'and earlier')
  t.notOk(expired(id('acme', '2026-10')), "the cutoff's own month is kept whole")
  t.notOk(expired(id('acme', '2026-11')), 'a later month')
  t.notOk(expired(id('acme2', '2026-09')), 'another account (a longer id with the same start)')
  t.notOk(expired(id('other', '2026-09')), 'another account')
  t.notOk(expired('acme\u0000p1\u0000erasure\u0000x'), 'an id that names no month')
  t.ok(
    expiredMonthKeys('acme', Date.UTC(2026, 9, 1))(id('acme', '2026-09')),
    'a cutoff at a month start expires the month before',
  )
})
