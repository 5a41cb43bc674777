import t from 'tap'
import { takeCount, batchBody, bodyBytes, utf8Bytes, ENVELOPE_BYTES } from '../src/batches.js'

const q = (...sizes: number[]) => sizes.map((bytes) => ({ bytes }))

t.test('a batch stops at the item count', async (t) => {
  t.same(takeCount(q(...Array(250).fill(10)), 100, 1_000_000), { count: 100, full: true })
  t.same(takeCount(q(10, 10, 10), 100, 1_000_000), { count: 3, full: false }, 'fewer items: not full, waits for more')
  t.same(takeCount(q(), 100, 1000), { count: 0, full: false })
})

t.test('a batch stops before the byte limit, counting envelope and commas', async (t) => {
  const max = ENVELOPE_BYTES + 3 * 100 + 2 // exactly three 100-byte items
  t.same(takeCount(q(100, 100, 100, 100), 100, max), { count: 3, full: true })
  t.same(takeCount(q(100, 100, 100, 100), 100, max - 1), { count: 2, full: true })
  t.equal(bodyBytes([100, 100, 100]), max)
  t.same(
    takeCount(q(5000, 1), 100, 1000),
    { count: 1, full: true },
    'an item alone over the limit still goes (never queued in practice)',
  )
})

t.test('the body is the items joined, and its size is what bodyBytes says', async (t) => {
  const items = [
    { type: 'event', event: 'a', user: { id: 'é' } },
    { type: 'identify', user: { id: 'u' } },
  ].map((i) => {
    const json = JSON.stringify(i)
    return { json, bytes: utf8Bytes(json) }
  })
  const sentAt = new Date('2024-05-01T12:00:00.000Z')
  const body = batchBody(items, sentAt)
  t.same(JSON.parse(body), { sent_at: '2024-05-01T12:00:00.000Z', events: items.map((i) => JSON.parse(i.json)) })
  t.equal(new TextEncoder().encode(body).length, bodyBytes(items.map((i) => i.bytes)))
  t.equal(utf8Bytes('é€😀'), 2 + 3 + 4)
})
