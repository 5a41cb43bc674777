import t from 'tap'
import { acceptedEventId, openableRecords } from './erasure-part.js'

t.test("the drill's erased person's event ids are read from the 200's results (docs/api.md)", async (t) => {
  const id = '0193f3a2-7c4e-7000-8000-000000000001'
  t.equal(acceptedEventId({ success: true, data: { results: [{ index: 0, success: true, event_id: id }] } }), id)
  t.equal(acceptedEventId({ success: true, event_id: id }), undefined, 'not a top-level event_id')
  t.equal(acceptedEventId({ data: { results: [{ index: 0, success: false }] } }), undefined)
  t.equal(acceptedEventId(null), undefined)
})

t.test(
  "with sealing on, the erased person's records open for no one: in clear or under a stored key is a problem",
  async (t) => {
    const key = (id: string, tombstone: boolean, at: number) => ({ id, tombstone, at })
    const sealedBy = new Map<string, string | null>([
      ['e1', 'acct\0p\u00002026-12\u00000'],
      ['e2', 'acct\0p\u00002026-12\u00000'],
      ['e3', 'acct\0p\u00002026-11\u00001'],
    ])
    const keys = [
      key('acct\0p\u00002026-12\u00000', false, 1),
      key('acct\0p\u00002026-11\u00001', false, 1),
      key('acct\0other\u00002026-12\u00000', false, 1),
      key('acct\0p\u00002026-12\u00000', true, 2),
    ]
    t.same(openableRecords(sealedBy, keys), [
      "1 of the erased person's records still open with a key on the keys topic",
    ])
    t.same(
      openableRecords(sealedBy, [...keys, key('acct\0p\u00002026-11\u00001', true, 3)]),
      [],
      'every key tombstoned',
    )
    t.same(
      openableRecords(new Map([['e4', null]]), keys),
      ["1 of the erased person's records are in clear on the events topic"],
      'a record in clear opens without a key',
    )
    t.same(openableRecords(sealedBy, keys.slice(2)), [], 'a key the compaction removed is gone too')
  },
)
