import t from 'tap'
import { erasureIdKeyId, erasureUserId, sealUserId } from './erasure-identity.js'

t.test("A22: a request's user id opens with its own key only, and not once the key is gone", async (t) => {
  const key = Buffer.alloc(32, 5)
  const e = { account_id: 'acme', erasure_id: 'e1', pseudonym: 'p1', sealed_user_id: sealUserId(key, 'ü-1', 'e1') }
  t.notOk(e.sealed_user_id.includes(Buffer.from('ü-1')), 'the id is not in clear')
  const id = erasureIdKeyId('acme', 'p1', 'e1')
  t.ok(id.startsWith('acme\u0000p1\u0000'), "under the person's key prefix, so the erasure's tombstones take it")
  t.equal(
    erasureUserId(e, (k) => (k === id ? key : undefined)),
    'ü-1',
  )
  t.equal(
    erasureUserId(e, () => undefined),
    undefined,
    'key forgotten: the id is gone',
  )
  t.throws(() => erasureUserId({ ...e, erasure_id: 'e2' }, () => key), 'bound to its erasure (AAD)')
  t.equal(
    erasureUserId({ ...e, pseudonym: null }, () => key),
    undefined,
    'a request in clear has nothing sealed',
  )
})
