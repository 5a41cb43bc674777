// The sealed-replay bench's topic shapes (bench/replay-sealed.ts personOf): what its figures are taken over.
import t from 'tap'
import { personOf } from '../../bench/replay-sealed.js'

/** For each record in turn: its person, and how many persons had records before and will have after it. */
function walk(records: number, persons: number, sessions: number) {
  const order = Array.from({ length: records }, (_, i) => personOf(i, records, persons, sessions))
  const first = new Map<number, number>()
  const last = new Map<number, number>()
  order.forEach((p, i) => {
    if (!first.has(p)) first.set(p, i)
    last.set(p, i)
  })
  const counts = new Map<number, number>()
  for (const p of order) counts.set(p, (counts.get(p) ?? 0) + 1)
  // The most persons whose records have begun and not ended at one record: what the held keys must hold.
  let open = 0
  let most = 0
  order.forEach((p, i) => {
    if (first.get(p) === i) open++
    most = Math.max(most, open)
    if (last.get(p) === i) open--
  })
  return { counts: new Set(counts.values()), persons: counts.size, most }
}

t.test('spread evenly: every person once before any comes back, all at once under way', async (t) => {
  const w = walk(10_000, 1_000, 0)
  t.same(w, { counts: new Set([10]), persons: 1_000, most: 1_000 })
  t.same(
    Array.from({ length: 4 }, (_, i) => personOf(1_000 + i, 10_000, 1_000, 0)),
    [0, 1, 2, 3],
  )
})

t.test('in sessions: the same persons and counts, never more than the sessions under way at once', async (t) => {
  t.same(walk(10_000, 1_000, 50), { counts: new Set([10]), persons: 1_000, most: 50 })
  t.same(walk(12_000, 1_000, 64), { counts: new Set([12]), persons: 1_000, most: 64 }, 'a last wave cut short')
  t.same(walk(10_000, 1_000, 1_000), walk(10_000, 1_000, 0), 'as many sessions as persons is the even spread')
})
