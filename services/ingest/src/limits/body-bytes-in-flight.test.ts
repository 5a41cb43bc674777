import t from 'tap'
import { BodyBytesInFlight } from './body-bytes-in-flight.js'

t.test('per account 429, per instance 503, both with Retry-After; a refusal holds nothing', async (t) => {
  const b = new BodyBytesInFlight({ perAccount: 100, perInstance: 150 })
  b.take('a', 60)
  t.throws(() => b.take('a', 41), {
    code: 'BODY_BYTES_IN_FLIGHT_EXCEEDED',
    status: 429,
    headers: { 'Retry-After': '1' },
  })
  t.equal(b.held('a'), 60)
  b.take('b', 90)
  t.throws(() => b.take('c', 1), { code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } })
  t.equal(b.held(), 150)
  b.give('a', 60)
  b.take('c', 1)
  t.equal(b.held('a'), 0)
  t.equal(b.held(), 91)
  b.give('b', 90)
  b.give('c', 1)
  t.equal(b.held(), 0)
})
