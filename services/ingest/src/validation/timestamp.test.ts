import t from 'tap'
import { isIsoDateTime, parseTimestamp, timestampMs } from './timestamp.js'

t.test('accepts date-times with Z, offsets, fractions or no offset (UTC)', async (t) => {
  t.equal(parseTimestamp('2024-05-01T12:30:00Z'), Date.UTC(2024, 4, 1, 12, 30, 0))
  t.equal(parseTimestamp('2024-05-01T12:30:00.123Z'), Date.UTC(2024, 4, 1, 12, 30, 0, 123))
  t.equal(parseTimestamp('2024-05-01T12:30:00.1Z'), Date.UTC(2024, 4, 1, 12, 30, 0, 100))
  t.equal(parseTimestamp('2024-05-01T12:30:00.123456789Z'), Date.UTC(2024, 4, 1, 12, 30, 0, 123), 'extra digits truncated')
  t.equal(parseTimestamp('2024-05-01T12:30:00'), Date.UTC(2024, 4, 1, 12, 30, 0), 'no offset means UTC')
  t.equal(parseTimestamp('2024-05-01T14:30:00+02:00'), Date.UTC(2024, 4, 1, 12, 30, 0))
  t.equal(parseTimestamp('2024-05-01T07:00:00-05:30'), Date.UTC(2024, 4, 1, 12, 30, 0))
  t.equal(parseTimestamp('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29), 'leap day')
  t.equal(parseTimestamp('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29), '400-year leap day')
  t.equal(parseTimestamp('0050-01-01T00:00:00Z'), -60589296000000, 'two-digit years are not shifted to 19xx')
})

t.test('rejects dates, bad calendars and loose formats', async (t) => {
  for (const s of [
    '2024-05-01',
    '2024-05-01 12:30:00Z',
    '2024-05-01T12:30Z',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:30:60Z',
    '2024-05-01T12:30:00+0200',
    '2024-05-01T12:30:00+24:00',
    '2024-05-01T12:30:00.Z',
    '2024-05-01T12:30:00z',
    ' 2024-05-01T12:30:00Z',
    '1714566600000',
    '',
  ]) {
    t.notOk(isIsoDateTime(s), s)
    t.ok(Number.isNaN(timestampMs(s)), s)
  }
  t.throws(() => parseTimestamp('2024-05-01'), RangeError)
})
