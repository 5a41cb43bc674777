import t from 'tap'
import { RecentIds } from './recent-ids.js'

t.test('ids are remembered for the window, per counter', async (t) => {
  const r = new RecentIds(1000, 10)
  r.add('a', 'm1', 0)
  t.ok(r.has('a', 'm1', 999))
  t.notOk(r.has('b', 'm1', 999), 'another counter')
  t.notOk(r.has('a', 'm1', 1000), 'forgotten at the end of the window')
  t.equal(r.size, 0, 'and dropped')
})

t.test('at most maxIds are kept, the oldest dropped first; a re-added id keeps its new expiry', async (t) => {
  const r = new RecentIds(1_000_000, 3)
  r.add('a', 'm1', 0)
  r.add('a', 'm2', 1)
  r.add('a', 'm1', 2) // again: now the newest
  r.add('a', 'm3', 3) // full: the slot of m1's first add goes, m1 stays
  t.ok(r.has('a', 'm1', 4))
  r.add('a', 'm4', 5) // m2 goes
  t.notOk(r.has('a', 'm2', 6))
  t.ok(r.has('a', 'm3', 6) && r.has('a', 'm4', 6))
  r.delete('a', 'm3')
  t.notOk(r.has('a', 'm3', 7), 'deleted')
})

t.test('adding far more ids than the cap stays fast (no walk over dropped entries)', async (t) => {
  const r = new RecentIds(600_000, 1000)
  for (let i = 0; i < 200_000; i++) {
    r.has('a', `m${i}`, i)
    r.add('a', `m${i}`, i)
  }
  t.ok(r.size <= 1000)
  t.ok(r.has('a', 'm199999', 200_000))
})
