import t from 'tap'
import { userKey, type ErasureRecord } from '../../../../schemas/records.js'
import { erases, ErasureSet } from './erasure-set.js'
import { erasureRecordKey, Pseudonyms } from './erasure-identity.js'
import { pseudonymousRecordKey } from './crypto/index.js'

const erasure = (over: Partial<ErasureRecord> = {}): ErasureRecord => ({
  erasure_id: 'e1',
  account_id: 'acme',
  user_id: 'u1',
  requested_by: 'test',
  requested_at: 1000,
  suppress: false,
  projections_purged_at: null,
  history_unreadable_at: null,
  disk_gone_at: null,
  updated_at: 1000,
  ...over,
})

t.test('an erasure covers what was received up to the request; with suppression, everything', async (t) => {
  t.ok(erases(erasure(), 999))
  t.ok(erases(erasure(), 1000))
  t.notOk(erases(erasure(), 1001), 'new data sent after a request without suppression is kept')
  t.ok(erases(erasure({ suppress: true }), 5000))
})

t.test('records are matched by their Kafka key, which is the person', async (t) => {
  const set = new ErasureSet()
  t.equal(set.forKey(Buffer.from(userKey('acme', 'u1'))), undefined, 'nothing erased: nothing matched')
  set.apply(erasure({ user_id: 'ü 1' }))
  t.equal(set.forKey(Buffer.from(userKey('acme', 'ü 1')))?.erasure_id, 'e1', 'non-ASCII ids match')
  t.equal(set.forKey(Buffer.from(userKey('acme', 'u2'))), undefined)
  t.equal(set.forKey(Buffer.from(userKey('other', 'ü 1'))), undefined, 'another account is another person')
  t.equal(set.forKey(null), undefined)
  t.ok(set.covers('acme', 'ü 1', 1000))
  t.notOk(set.covers('acme', 'ü 1', 1001))
})

t.test("a request's earlier state read again does not replace its receipt", async (t) => {
  const set = new ErasureSet()
  const request = erasure()
  const receipt = erasure({ projections_purged_at: 1500, updated_at: 1500 })
  set.apply(request)
  set.apply(receipt)
  set.apply(request)
  t.equal(set.get('acme', 'u1')?.projections_purged_at, 1500, 'the receipt stays')
  set.apply(erasure({ erasure_id: 'e2', requested_at: 1200, updated_at: 1200 }))
  t.equal(set.get('acme', 'u1')?.erasure_id, 'e2', 'a new request of the person replaces it, whatever its time')
})

t.test('suppressed ids per account follow the latest request', async (t) => {
  const set = new ErasureSet()
  set.apply(erasure({ suppress: true }))
  t.ok(set.suppressedOf('acme')!.has('u1'))
  t.notOk(set.suppressedOf('acme')!.has('u2'))
  t.equal(set.suppressedOf('other'), undefined)
  set.apply(erasure({ erasure_id: 'e2', suppress: false, requested_at: 2000 }))
  t.equal(set.suppressedOf('acme'), undefined, 'a later request without suppression lifts it')
  t.equal(set.size, 1)
  t.same(
    set.list('acme').map((e) => e.erasure_id),
    ['e2'],
  )
})

t.test(
  'A22: a pseudonymous erasure matches sealed and clear records, suppresses, and replaces one in clear',
  async (t) => {
    const pseudonyms = new Pseudonyms(Buffer.alloc(32, 3))
    const p = pseudonyms.of('acme', 'u1')
    const sealedKey = Buffer.from(pseudonymousRecordKey('acme', p))
    const clearKey = Buffer.from(userKey('acme', 'u1'))
    const set = new ErasureSet(pseudonyms)
    set.apply(erasure({ user_id: 'u1', suppress: false }))
    t.equal(set.forKey(sealedKey)?.erasure_id, 'e1', 'an erasure in clear (older format) matches sealed records')
    const named = erasure({ erasure_id: 'e2', user_id: '', pseudonym: p, suppress: true, requested_at: 2000 })
    t.equal(erasureRecordKey(named), `acme\u0000${p}`, 'its record key is the pseudonymous one')
    set.apply(named)
    t.equal(set.size, 1, 'the later request replaces the earlier, whatever their formats')
    t.equal(set.forKey(sealedKey)?.erasure_id, 'e2', 'sealed records match by their key')
    t.equal(set.forKey(clearKey)?.erasure_id, 'e2', 'records in clear match through the pseudonym of their user id')
    t.equal(set.forKey(Buffer.from(userKey('acme', 'u2'))), undefined)
    t.equal(set.forKey(Buffer.from(userKey('other', 'u1'))), undefined, 'another account')
    t.equal(set.get('acme', 'u1')?.erasure_id, 'e2', 'looked up by the user id')
    t.ok(set.suppressedOf('acme')!.has('u1'), 'ingest refuses the user id (H55)')
    t.notOk(set.suppressedOf('acme')!.has('u2'))
    t.ok(set.covers('acme', 'u1', 9999))
    const plain = new ErasureSet()
    plain.apply(named)
    t.equal(plain.forKey(sealedKey)?.erasure_id, 'e2', 'without pseudonyms a sealed record still matches by its key')
  },
)
