import t from 'tap'
import { eventRow, identifyRow, traitRows, eventTraitRows, identifyTraitRows, RowMappingError } from './rows.js'
import { makeEvent, makeIdentify } from '../../../../test/support/clickhouse-helpers.js'

const TS = Date.UTC(2024, 4, 15, 12, 34, 56, 789)

t.test('eventRow maps every column, keeping milliseconds beside DateTime text', async (t) => {
  const r = makeEvent({
    event_id: 'e1',
    timestamp: TS,
    original_timestamp: TS - 5000,
    received_at: TS + 1,
    sent_at: TS - 10,
    timestamp_flagged: true,
    properties: '{"a":1}',
    context: '{"ip":"1.2.3.4"}',
    ip: '1.2.3.4',
    user_agent: 'UA',
    message_id: 'm1',
    user_email: 'a@example.com',
    user_traits: '{"plan":"pro"}',
    anonymous_id: 'anon_1',
  })
  t.same(eventRow(r), {
    event_id: 'e1',
    account_id: 'acc_1',
    environment: 'live',
    key_id: 'key_1',
    event: 'page_viewed',
    user_id: 'user_1',
    timestamp: '2024-05-15 12:34:56',
    timestamp_ms: TS,
    original_timestamp_ms: TS - 5000,
    received_at: '2024-05-15 12:34:56',
    received_at_ms: TS + 1,
    sent_at_ms: TS - 10,
    timestamp_flagged: 1,
    properties: '{"a":1}',
    context: '{"ip":"1.2.3.4"}',
    ip: '1.2.3.4',
    user_agent: 'UA',
    message_id: 'm1',
    user_email: 'a@example.com',
    user_traits: '{"plan":"pro"}',
    anonymous_id: 'anon_1',
  })
})

t.test('absent optional fields become 0 or empty', async (t) => {
  const row = eventRow(makeEvent())
  t.equal(row.original_timestamp_ms, 0)
  t.equal(row.sent_at_ms, 0)
  t.equal(row.ip, '')
  t.equal(row.user_agent, '')
  t.equal(row.message_id, '')
  t.equal(row.user_email, '')
  t.equal(row.user_traits, '')
  t.equal(row.anonymous_id, '', 'H52: no anonymous id (our own contract, records before v2)')
  t.equal(row.timestamp_flagged, 0)
})

t.test('profile email falls back to a string email trait (H10)', async (t) => {
  t.equal(eventRow(makeEvent({ user_traits: '{"email":"t@example.com"}' })).user_email, 't@example.com')
  t.equal(
    eventRow(makeEvent({ user_email: 'u@example.com', user_traits: '{"email":"t@example.com"}' })).user_email,
    'u@example.com',
  )
  t.equal(identifyRow(makeIdentify({ traits: '{"email":"i@example.com"}' })).email, 'i@example.com')
  t.equal(identifyRow(makeIdentify({ traits: '{"email":42}' })).email, '')
})

t.test('identifyRow maps every column', async (t) => {
  const row = identifyRow(
    makeIdentify({ event_id: 'i1', environment: 'test', timestamp: TS, email: 'x@example.com', traits: '{"a":1}' }),
  )
  t.match(row, {
    event_id: 'i1',
    environment: 'test',
    email: 'x@example.com',
    traits: '{"a":1}',
    timestamp: '2024-05-15 12:34:56',
    timestamp_ms: TS,
    original_timestamp_ms: 0,
    sent_at_ms: 0,
    timestamp_flagged: 0,
  })
})

t.test('traitRows: one row per top-level key, value as JSON text', async (t) => {
  const rows = traitRows(
    'acc',
    'u',
    '{"plan":"pro","seats":3,"beta":true,"tags":["a"],"org":{"id":1},"gone":null}',
    TS,
    'test',
    'e9',
  )
  t.same(
    rows.map((r) => [r.trait_key, r.value]),
    [
      ['plan', '"pro"'],
      ['seats', '3'],
      ['beta', 'true'],
      ['tags', '["a"]'],
      ['org', '{"id":1}'],
      ['gone', 'null'],
    ],
  )
  for (const r of rows) {
    t.match(r, {
      account_id: 'acc',
      user_id: 'u',
      environment: 'test',
      set_at: '2024-05-15 12:34:56',
      set_at_ms: TS,
      source_event_id: 'e9',
    })
  }
  t.equal(traitRows('acc', 'u', '{"a":1}', TS)[0]!.environment, 'live', 'environment defaults to live')
})

t.test('traitRows: empty, null and non-object traits give no rows; bad JSON throws', async (t) => {
  t.same(traitRows('a', 'u', null, TS), [])
  t.same(traitRows('a', 'u', '', TS), [])
  t.same(traitRows('a', 'u', '{}', TS), [])
  t.same(traitRows('a', 'u', '[1,2]', TS), [])
  t.same(traitRows('a', 'u', '"x"', TS), [])
  t.throws(() => traitRows('a', 'u', '{nope', TS), RowMappingError)
})

t.test('event and identify traits both produce trait rows (H10)', async (t) => {
  t.equal(eventTraitRows(makeEvent({ user_traits: '{"plan":"pro"}' })).length, 1)
  t.equal(eventTraitRows(makeEvent()).length, 0)
  const rows = identifyTraitRows(
    makeIdentify({ event_id: 'i2', traits: '{"a":1,"b":2}', timestamp: TS, received_at: TS }),
  )
  t.same(
    rows.map((r) => [r.trait_key, r.set_at_ms, r.source_event_id]),
    [
      ['a', TS, 'i2'],
      ['b', TS, 'i2'],
    ],
  )
})

t.test('trait rows are versioned by the event time, never later than the receipt (H39)', async (t) => {
  const ahead = eventTraitRows(
    makeEvent({ event_id: 'e-ahead', user_traits: '{"plan":"pro"}', timestamp: TS + 23 * 3600_000, received_at: TS }),
  )
  t.same(
    ahead.map((r) => [r.set_at_ms, r.set_at]),
    [[TS, '2024-05-15 12:34:56']],
    'a clock ahead of the server is capped at the receipt',
  )
  const backdated = identifyTraitRows(
    makeIdentify({ event_id: 'i-old', traits: '{"plan":"free"}', timestamp: TS - 86_400_000, received_at: TS }),
  )
  t.same(
    backdated.map((r) => r.set_at_ms),
    [TS - 86_400_000],
    'an earlier event time (an import) is kept',
  )
})

t.test('times outside the DateTime range are mapping errors', async (t) => {
  t.throws(() => eventRow(makeEvent({ timestamp: -1 })), RowMappingError)
  t.throws(() => eventRow(makeEvent({ received_at: 5e12 })), RowMappingError)
  t.throws(() => eventRow(makeEvent({ timestamp: 1.5 })), RowMappingError)
  t.throws(() => identifyRow(makeIdentify({ environment: 'prod' as never })), RowMappingError)
})

t.test('times 18.16 cannot read back are mapping errors; the epoch and 2105 are not', async (t) => {
  t.equal(eventRow(makeEvent({ timestamp: 0 })).timestamp, '1970-01-01 00:00:00')
  t.equal(eventRow(makeEvent({ timestamp: Date.UTC(2105, 11, 31, 23, 59, 59, 999) })).timestamp, '2105-12-31 23:59:59')
  // 18.16 stores '2106-01-01 00:00:00' as 0 without an error
  t.throws(() => eventRow(makeEvent({ timestamp: Date.UTC(2106, 0, 1) })), RowMappingError)
  t.throws(() => eventRow(makeEvent({ received_at: Date.UTC(2106, 1, 7) })), RowMappingError)
})

t.test('a trait key with an unpaired surrogate is a mapping error, not an endless insert retry', async (t) => {
  t.throws(() => traitRows('a', 'u', '{"\\ud800":1}', TS, 'live', 'e1'), RowMappingError)
  t.same(
    traitRows('a', 'u', '{"\\ud83d\\ude00":"\\ud800"}', TS).map((r) => [r.trait_key, r.value]),
    [['\u{1F600}', '"\\ud800"']],
    'a pair is fine; a value stays JSON text',
  )
})

t.test('DateTime text agrees with formatDateTime across the range, cached days included', async (t) => {
  const { formatDateTime } = await import('../../../../schemas/clickhouse/sql.js')
  const max = Date.UTC(2105, 11, 31, 23, 59, 59, 999)
  let seed = 7
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647
  const instants = [
    0,
    999,
    1000,
    86_399_999,
    86_400_000,
    max,
    ...Array.from({ length: 2000 }, () => Math.floor(next() * max)),
  ]
  for (const ms of [...instants, ...instants]) {
    const row = eventRow(makeEvent({ timestamp: ms, received_at: ms }))
    if (row.timestamp !== formatDateTime(ms)) t.fail(`${ms}: ${row.timestamp} != ${formatDateTime(ms)}`)
  }
  t.pass(`${instants.length * 2} instants`)
})
