import t from 'tap'
import { ISO_DATE_TIME_SCHEMA_PATTERN, ISO_SENT_AT_SCHEMA_PATTERN, isIsoDateTime, timestampMs } from './timestamp.js'

t.test('accepts date-times with Z, offsets, fractions or no offset (UTC)', async (t) => {
  t.equal(timestampMs('2024-05-01T12:30:00Z'), Date.UTC(2024, 4, 1, 12, 30, 0))
  t.equal(timestampMs('2024-05-01T12:30:00.123Z'), Date.UTC(2024, 4, 1, 12, 30, 0, 123))
  t.equal(timestampMs('2024-05-01T12:30:00.1Z'), Date.UTC(2024, 4, 1, 12, 30, 0, 100))
  t.equal(timestampMs('2024-05-01T12:30:00.123456789Z'), Date.UTC(2024, 4, 1, 12, 30, 0, 123), 'extra digits truncated')
  t.equal(timestampMs('2024-05-01T12:30:00'), Date.UTC(2024, 4, 1, 12, 30, 0), 'no offset means UTC')
  t.equal(timestampMs('2024-05-01T14:30:00+02:00'), Date.UTC(2024, 4, 1, 12, 30, 0))
  t.equal(timestampMs('2024-05-01T07:00:00-05:30'), Date.UTC(2024, 4, 1, 12, 30, 0))
  t.equal(timestampMs('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29), 'leap day')
  t.equal(timestampMs('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29), '400-year leap day')
  t.equal(timestampMs('0050-01-01T00:00:00Z'), -60589296000000, 'two-digit years are not shifted to 19xx')
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
})

t.test(
  'the OpenAPI patterns accept exactly what the service does: sent_at any year, event times from 1970',
  async (t) => {
    // With the u flag, as JSON Schema validators read patterns.
    const eventTime = new RegExp(ISO_DATE_TIME_SCHEMA_PATTERN, 'u')
    const sentAt = new RegExp(ISO_SENT_AT_SCHEMA_PATTERN, 'u')
    const years = [
      '0000',
      '0004',
      '0100',
      '1600',
      '1900',
      '1969',
      '1970',
      '1972',
      '1999',
      '2000',
      '2023',
      '2024',
      '2100',
      '2400',
      '9996',
      '9999',
    ]
    const pad = (n: number) => String(n).padStart(2, '0')
    const days = [0, 1, 9, 10, 19, 20, 28, 29, 30, 31, 32, 39, 40]
    const times = [
      'T00:00:00',
      'T23:59:59.999999999Z',
      'T24:00:00',
      'T12:60:00',
      'T12:00:60',
      'T99:00:00+01:00',
      'T12:00:00+23:59',
      'T12:00:00-24:00',
      'T12:00:00+0100',
      'T12:00:00.Z',
    ]
    let checked = 0
    for (const y of years)
      for (let m = 0; m <= 13; m++)
        for (const d of days)
          for (const time of times) {
            const s = `${y}-${pad(m)}-${pad(d)}${time}`
            const ok = isIsoDateTime(s)
            if (sentAt.test(s) !== ok) t.fail(`sent_at pattern on ${s}: service says ${ok}`)
            if (eventTime.test(s) !== (ok && +y >= 1970)) t.fail(`event time pattern on ${s}: service says ${ok}`)
            checked++
          }
    t.equal(checked, 16 * 14 * 13 * 10)
    for (const s of [
      '2024-13-01T00:00:00Z',
      '2024-01-32T00:00:00Z',
      '2024-01-01T99:00:00Z',
      '1969-12-31T23:59:59Z',
      '2023-02-29T00:00:00Z',
      '2024-05-01',
      '2024-05-01 12:00:00Z',
      '2024-05-01T12:00:00+0100',
      '２０２４-05-01T12:00:00Z',
    ]) {
      t.notOk(eventTime.test(s), s)
    }
    t.ok(eventTime.test('2024-02-29T12:00:00+01:00'))
    t.ok(sentAt.test('1969-12-31T23:59:59Z'), 'sent_at is never stored as an event time')
  },
)
