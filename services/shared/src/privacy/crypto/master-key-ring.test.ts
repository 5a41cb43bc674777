import t from 'tap'
import { MasterKeyRing, NONE } from './master-key-ring.js'
import { newDataKey, wrapDataKey } from './data-key.js'

const m1 = Buffer.alloc(32, 1)
const m2 = Buffer.alloc(32, 2)
const m3 = Buffer.alloc(32, 3)

t.test('A35: a key opens with whichever master wrapped it, and the ring says which', async (t) => {
  const ring = new MasterKeyRing(m2, [m1])
  const k1 = newDataKey()
  const k2 = newDataKey()
  t.same(ring.open('id-1', wrapDataKey(m1, 'id-1', k1)), k1, 'a key of the old master')
  t.equal(ring.lastOpener, 1)
  t.same(ring.open('id-2', wrapDataKey(m2, 'id-2', k2)), k2, 'a key of the current one')
  t.equal(ring.lastOpener, 0)
  t.same(ring.open('id-1', wrapDataKey(m1, 'id-1', k1)), k1, 'and back')
  t.equal(ring.lastOpener, 1)
  t.same(ring.keys, [m2, m1], 'the current master first: the one that wraps')
})

t.test('a key no master opens throws; the id stays bound to the key (AAD)', async (t) => {
  const ring = new MasterKeyRing(m2, [m1])
  t.throws(() => ring.open('id', wrapDataKey(m3, 'id', newDataKey())), /unable to authenticate/)
  t.throws(() => ring.open('other-id', wrapDataKey(m1, 'id', newDataKey())), /unable to authenticate/)
  t.throws(() => new MasterKeyRing(m2).open('id', wrapDataKey(m1, 'id', newDataKey())), /unable to authenticate/)
  const k = newDataKey()
  t.same(ring.open('id', wrapDataKey(m1, 'id', k)), k, 'a failure leaves the ring usable')
})

t.test('A36: openAll opens a batch of keys of both masters, says which opened each, and leaves the rest', async (t) => {
  const ring = new MasterKeyRing(m2, [m1])
  const ids = Array.from({ length: 3_000 }, (_, i) => `id-${i}`)
  const keys = ids.map(() => newDataKey())
  // Runs of one master, as a topic holds them, then single keys of each and of neither.
  const masterOf = (i: number) => (i < 1_200 ? m1 : i < 2_500 ? m2 : i % 3 === 0 ? m3 : i % 3 === 1 ? m1 : m2)
  const wrapped = ids.map((id, i) => wrapDataKey(masterOf(i), id, keys[i]!))
  const { keys: opened, openers } = ring.openAll(ids, wrapped)
  let wrong = 0
  for (let i = 0; i < ids.length; i++) {
    const m = masterOf(i)
    const expected = m === m3 ? undefined : keys[i]
    if (!(expected === undefined ? opened[i] === undefined : opened[i]?.equals(expected))) wrong++
    if (openers[i] !== (m === m2 ? 0 : m === m1 ? 1 : NONE)) wrong++
  }
  t.equal(wrong, 0, 'each key as its master wrapped it, each opener named, none for the third master')
  t.equal(ring.lastOpener, 0, "the last key it opened (id-2999) was the current master's")
  t.same(ring.openAll([], []), { keys: [], openers: new Int8Array(0) }, 'an empty batch')
  const k = newDataKey()
  t.same(
    ring.openAll(['gone', 'id-b'], [null, wrapDataKey(m1, 'id-b', k)]),
    { keys: [undefined, k], openers: Int8Array.from([NONE, 1]) },
    'null (a tombstone) is nothing to open, and the value after it opens',
  )
})
