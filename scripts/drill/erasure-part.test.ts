import t from 'tap'
import { acceptedEventId } from './erasure-part.js'

t.test("the drill's erased person's event ids are read from the 200's results (docs/api.md)", async (t) => {
  const id = '0193f3a2-7c4e-7000-8000-000000000001'
  t.equal(acceptedEventId({ success: true, data: { results: [{ index: 0, success: true, event_id: id }] } }), id)
  t.equal(acceptedEventId({ success: true, event_id: id }), undefined, 'not a top-level event_id')
  t.equal(acceptedEventId({ data: { results: [{ index: 0, success: false }] } }), undefined)
  t.equal(acceptedEventId(null), undefined)
})
