import t from 'tap'
import { MasterKeyRing } from './master-key-ring.js'
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
