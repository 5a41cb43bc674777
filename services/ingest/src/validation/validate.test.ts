import t from 'tap'
import { validateBatch, validateSingle, type FieldError } from './validate.js'

const paths = (errors: FieldError[]) => errors.map((e) => e.path)
const single = (body: unknown) => {
  const r = validateSingle(body)
  if (r.ok) throw new Error('expected a validation failure')
  return r.errors
}

t.test('single: a valid event with every field', async (t) => {
  const r = validateSingle({
    event: 'signup_completed',
    user: { id: 'u1', email: 'a@b.co', traits: { plan: 'pro' }, extra: 1 },
    timestamp: '2024-05-01T12:30:00.123+02:00',
    properties: { step: 3, tags: ['a'] },
    context: { platform: 'ios' },
    message_id: 'm-1',
    unknown_field: 'ignored',
  })
  t.same(r, {
    ok: true,
    item: {
      kind: 'event',
      event: 'signup_completed',
      user: { id: 'u1', email: 'a@b.co', traits: { plan: 'pro' } },
      timestamp: Date.UTC(2024, 4, 1, 10, 30, 0, 123), // read once, here: mapping takes the ms
      properties: { step: 3, tags: ['a'] },
      context: { platform: 'ios' },
      message_id: 'm-1',
    },
  })
})

t.test('single: minimal event gets empty properties and context', async (t) => {
  const r = validateSingle({ event: 'x', user: { id: 'u' } })
  t.ok(r.ok)
  if (!r.ok) return
  t.strictSame(r.item, { kind: 'event', event: 'x', user: { id: 'u' }, properties: {}, context: {} })
})

t.test('single: body must be an object', async (t) => {
  for (const body of [null, [], 'x', 3, undefined]) {
    const errors = single(body)
    t.same(paths(errors), [''])
    t.match(errors[0]!.message, /must be a JSON object/)
  }
})

t.test('single: bare-string user is rejected with the v1 object-form message (H8)', async (t) => {
  const errors = single({ event: 'x', user: 'u1' })
  t.same(paths(errors), ['/user'])
  t.match(errors[0]!.message, /object \{"id"/)
  t.match(errors[0]!.message, /removed in v1/)
})

t.test('single: name without event names `event` (H8)', async (t) => {
  const errors = single({ name: 'signup', user: { id: 'u' } })
  t.same(paths(errors), ['/event'])
  t.match(errors[0]!.message, /"event"/)
  t.match(errors[0]!.message, /not "name"/)
  const missing = single({ user: { id: 'u' } })
  t.same(paths(missing), ['/event'])
  t.match(missing[0]!.message, /^event is required/)
  t.notMatch(missing[0]!.message, /"name"/)
})

t.test('single: every problem is listed at once', async (t) => {
  const errors = single({
    event: '',
    user: { email: 5, traits: [] },
    timestamp: '2024-05-01',
    properties: null,
    context: [1],
    message_id: '',
  })
  t.same(paths(errors), [
    '/event',
    '/user/id',
    '/user/email',
    '/user/traits',
    '/timestamp',
    '/context',
    '/message_id',
    '/properties',
  ])
  const by = Object.fromEntries(errors.map((e) => [e.path, e.message]))
  t.equal(by['/event'], 'event must not be empty')
  t.equal(by['/user/id'], 'user.id is required')
  t.equal(by['/user/email'], 'user.email must be a string, got a number')
  t.equal(by['/user/traits'], 'user.traits must be an object, got an array')
  t.match(by['/timestamp'], /ISO 8601 date-time/)
  t.equal(by['/properties'], 'properties must be an object, got null')
  t.equal(by['/context'], 'context must be an object, got an array')
  t.equal(by['/message_id'], 'message_id must be 1 to 100 characters, got 0')
})

t.test('single: name rules (H9)', async (t) => {
  const ok = (event: unknown, id: unknown = 'u') => validateSingle({ event, user: { id } }).ok
  t.ok(ok('a'.repeat(255)))
  t.ok(ok('😀'.repeat(255)), '255 code points even though 510 UTF-16 units')
  t.notOk(ok('a'.repeat(256)))
  t.notOk(ok('😀'.repeat(256)))
  t.notOk(ok('a\nb'))
  t.notOk(ok('a\u0000'))
  t.notOk(ok('a\u007f'))
  t.notOk(ok('a\u0085'))
  t.ok(ok('ünïcødé event'))
  t.notOk(ok(42))
  t.notOk(ok('x', ''))
  t.notOk(ok('x', 7), 'numeric user.id is not a string')
  t.notOk(ok('x', 'a'.repeat(256)))
  t.notOk(ok('x', 'tab\tid'))
  t.same(single({ event: 'a'.repeat(300), user: { id: 'u\r' } }), [
    { path: '/event', message: 'event must be at most 255 characters, got 300' },
    { path: '/user/id', message: 'user.id must not contain control characters' },
  ])
  t.same(single({ event: 42, user: { id: null } }), [
    { path: '/event', message: 'event must be a string, got a number' },
    { path: '/user/id', message: 'user.id must be a string, got null' },
  ])
})

t.test('single: user missing or of another type', async (t) => {
  t.same(paths(single({ event: 'x' })), ['/user'])
  t.match(single({ event: 'x' })[0]!.message, /user is required/)
  t.same(single({ event: 'x', user: 12 }), [
    { path: '/user', message: 'user must be an object {"id": "<user id>"}, got a number' },
  ])
  t.same(paths(single({ event: 'x', user: ['u'] })), ['/user'])
})

t.test('single: message_id length (H16)', async (t) => {
  t.ok(validateSingle({ event: 'x', user: { id: 'u' }, message_id: 'm'.repeat(100) }).ok)
  t.same(single({ event: 'x', user: { id: 'u' }, message_id: 'm'.repeat(101) }), [
    { path: '/message_id', message: 'message_id must be 1 to 100 characters, got 101' },
  ])
  t.same(single({ event: 'x', user: { id: 'u' }, message_id: 12 }), [
    { path: '/message_id', message: 'message_id must be a string, got a number' },
  ])
})

t.test('single: 32 KB per event (H9)', async (t) => {
  const base = { event: 'x', user: { id: 'u' }, properties: { pad: '' } }
  const overhead = JSON.stringify(base).length
  const exact = { ...base, properties: { pad: 'a'.repeat(32768 - overhead) } }
  t.equal(Buffer.byteLength(JSON.stringify(exact)), 32768)
  t.ok(validateSingle(exact).ok, 'exactly 32768 bytes is allowed')
  const over = { ...base, properties: { pad: 'a'.repeat(32769 - overhead) } }
  t.same(single(over), [{ path: '', message: 'event JSON is 32769 bytes; at most 32768 bytes (32 KB) allowed' }])
  // Multi-byte: 11,000 × 'é' (2 bytes) is 22,000 bytes, fine; 'ह' (3 bytes) pushes it over.
  t.ok(validateSingle({ ...base, properties: { pad: 'é'.repeat(11000) } }).ok)
  const errors = single({ ...base, properties: { pad: 'ह'.repeat(11000) } })
  t.same(paths(errors), [''])
  t.match(errors[0]!.message, /event JSON is 330\d\d bytes/)
  t.match(single({ ...base, properties: { pad: 'a'.repeat(40000) } })[0]!.message, /event JSON is 400\d\d bytes/)
})

t.test(
  '32 KB is measured on the JSON text, escapes and all, though most events skip JSON.stringify (bench/HISTORY.md)',
  async (t) => {
    const base = { event: 'x', user: { id: 'u' } }
    // 6,000 control characters are 6,000 UTF-16 units but 36,000 bytes of JSON (\u0001 each).
    const ctrl = single({ ...base, properties: { pad: '\u0001'.repeat(6000) } })
    t.same(paths(ctrl), [''])
    t.match(ctrl[0]!.message, /event JSON is 360\d\d bytes/)
    // Keys count too, here 2,000 keys of 3 escaped characters (18 + 4 bytes each with the 0).
    const keys = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`\u0001\u0002${String.fromCharCode(0x100 + i)}`, 0]),
    )
    t.match(single({ ...base, properties: keys })[0]!.message, /event JSON is \d+ bytes/)
    t.ok(Buffer.byteLength(JSON.stringify({ ...base, properties: keys })) > 32768)
    // A number's text can be longer than its source (1E20 is 100000000000000000000).
    const nums = Array.from({ length: 1500 }, () => 1e20)
    t.ok(Buffer.byteLength(JSON.stringify({ ...base, properties: { nums } })) > 32768)
    t.same(paths(single({ ...base, properties: { nums } })), [''])
    // The same checks inside a batch item, under user too.
    const r = validateBatch({
      sent_at: '2024-05-01T12:00:00Z',
      events: [{ type: 'event', event: 'x', user: { id: 'u', traits: { pad: '\u0001'.repeat(6000) } } }],
    })
    t.ok(r.ok && !r.items[0]!.ok && /event JSON is 360\d\d bytes/.test(r.items[0]!.errors[0]!.message))
  },
)

const SENT = '2024-05-01T12:00:00Z'

t.test('batch: envelope errors reject the request', async (t) => {
  const env = (body: unknown) => {
    const r = validateBatch(body)
    if (r.ok) throw new Error('expected envelope failure')
    return r.errors
  }
  t.same(env({}), [
    { path: '/sent_at', message: 'sent_at is required: the ISO 8601 time the batch was sent' },
    { path: '/events', message: 'events is required: an array of 1 to 100 items' },
  ])
  t.same(paths(env({ sent_at: 'yesterday', events: [] })), ['/sent_at', '/events'])
  t.equal(env({ sent_at: SENT, events: [] })[0]!.message, 'events must contain at least 1 item')
  const many = Array.from({ length: 101 }, () => ({ type: 'event', event: 'x', user: { id: 'u' } }))
  t.same(env({ sent_at: SENT, events: many }), [
    { path: '/events', message: 'events must contain at most 100 items, got 101' },
  ])
  t.same(env({ sent_at: SENT, events: { 0: {} } }), [
    { path: '/events', message: 'events must be an array of 1 to 100 items, got an object' },
  ])
  t.same(paths(env([])), [''])
  t.same(paths(env({ events: [{ type: 'event', event: 'x', user: { id: 'u' } }] })), ['/sent_at'])
  const hundred = validateBatch({ sent_at: SENT, events: many.slice(0, 100) })
  t.ok(hundred.ok)
  if (hundred.ok) t.equal(hundred.items.length, 100)
})

t.test('batch: items validated independently with root-relative paths', async (t) => {
  const r = validateBatch({
    sent_at: SENT,
    events: [
      { type: 'event', name: 'via_name', user: { id: 'u1' }, properties: { a: 1 } },
      { type: 'event', event: 'via_event', user: { id: 'u2' }, timestamp: '2024-05-01T11:59:00Z', message_id: 'm2' },
      { type: 'event', user: { id: '' }, properties: 'x' },
      { type: 'identify', user: 'bare' },
      { user: { id: 'u' } },
      { type: 'track', event: 'x', user: { id: 'u' } },
      'not an object',
      { type: 'event', event: 'x', name: 'y', user: { id: 'u' } },
    ],
  })
  t.ok(r.ok)
  if (!r.ok) return
  t.equal(r.sentAt, SENT)
  t.same(
    r.items.map((i) => [i.index, i.ok]),
    [
      [0, true],
      [1, true],
      [2, false],
      [3, false],
      [4, false],
      [5, false],
      [6, false],
      [7, true],
    ],
  )
  const [a, b, c, d, e, f, g, h] = r.items
  t.same(a!.ok && a!.item, { kind: 'event', event: 'via_name', user: { id: 'u1' }, properties: { a: 1 }, context: {} })
  t.same(b!.ok && b!.item, {
    kind: 'event',
    event: 'via_event',
    user: { id: 'u2' },
    timestamp: Date.UTC(2024, 4, 1, 11, 59),
    properties: {},
    context: {},
    message_id: 'm2',
  })
  t.same(!c!.ok && c!.errors, [
    { path: '/events/2/user/id', message: 'user.id must not be empty' },
    { path: '/events/2/event', message: 'event name is required: give "event" (or "name")' },
    { path: '/events/2/properties', message: 'properties must be an object, got a string' },
  ])
  t.same(!d!.ok && paths(d!.errors), ['/events/3/user'])
  t.match(!d!.ok && d!.errors[0]!.message, /removed in v1/)
  t.same(!e!.ok && e!.errors, [{ path: '/events/4/type', message: 'type is required: "event" or "identify"' }])
  t.same(!f!.ok && f!.errors, [{ path: '/events/5/type', message: 'type must be "event" or "identify", got "track"' }])
  t.same(!g!.ok && g!.errors, [{ path: '/events/6', message: 'batch item must be an object, got a string' }])
  t.equal(h!.ok && h!.item.kind === 'event' && h!.item.event, 'x', '`event` wins over `name`')
})

t.test('batch: invalid name field reports its own path', async (t) => {
  const r = validateBatch({ sent_at: SENT, events: [{ type: 'event', name: 'a\tb', user: { id: 'u' } }] })
  t.ok(r.ok)
  if (r.ok)
    t.same(!r.items[0]!.ok && r.items[0]!.errors, [
      { path: '/events/0/name', message: 'name must not contain control characters' },
    ])
})

t.test('batch: identify merges traits, top level winning, and picks the email (H10)', async (t) => {
  const r = validateBatch({
    sent_at: SENT,
    events: [
      {
        type: 'identify',
        user: { id: 'u1', email: 'user@x.co', traits: { plan: 'free', company: 'Acme', email: 'inner@x.co' } },
        traits: { plan: 'pro', email: 'top@x.co' },
        context: { locale: 'de' },
        timestamp: '2024-05-01T11:00:00Z',
        message_id: 'id-1',
      },
      { type: 'identify', user: { id: 'u2', email: 'user@x.co' } },
      { type: 'identify', user: { id: 'u3', traits: { email: 'inner@x.co' } } },
      { type: 'identify', user: { id: 'u4' }, traits: { name: 'N' } },
      { type: 'identify', user: { id: 'u5' }, traits: [] },
    ],
  })
  t.ok(r.ok)
  if (!r.ok) return
  const items = r.items.map((i) => (i.ok ? i.item : i.errors))
  t.same(items[0], {
    kind: 'identify',
    user: { id: 'u1', email: 'user@x.co' },
    traits: { plan: 'pro', company: 'Acme', email: 'top@x.co' },
    email: 'top@x.co',
    timestamp: Date.UTC(2024, 4, 1, 11),
    context: { locale: 'de' },
    message_id: 'id-1',
  })
  t.strictSame(items[1], {
    kind: 'identify',
    user: { id: 'u2', email: 'user@x.co' },
    traits: {},
    email: 'user@x.co',
    context: {},
  })
  t.same(items[2], {
    kind: 'identify',
    user: { id: 'u3' },
    traits: { email: 'inner@x.co' },
    email: 'inner@x.co',
    context: {},
  })
  t.strictSame(items[3], { kind: 'identify', user: { id: 'u4' }, traits: { name: 'N' }, context: {} })
  t.same(items[4], [{ path: '/events/4/traits', message: 'traits must be an object, got an array' }])
})

t.test('batch: oversized item is an item error at the item path', async (t) => {
  const r = validateBatch({
    sent_at: SENT,
    events: [
      { type: 'event', event: 'ok', user: { id: 'u' } },
      { type: 'event', event: 'big', user: { id: 'u' }, properties: { pad: 'a'.repeat(33000) } },
    ],
  })
  t.ok(r.ok)
  if (!r.ok) return
  t.ok(r.items[0]!.ok)
  t.same(!r.items[1]!.ok && paths(r.items[1]!.errors), ['/events/1'])
})

// ---- A4, H9, H26: what is answered 200 must be storable

const RECEIVED = Date.UTC(2024, 4, 1, 12)
const batchOf = (items: unknown[], sentAt = '2024-05-01T12:00:00Z') => {
  const r = validateBatch({ sent_at: sentAt, events: items }, RECEIVED)
  if (!r.ok) throw new Error('envelope refused: ' + JSON.stringify(r.errors))
  return r.items
}
const deep = (levels: number, leaf: unknown = 1): unknown => {
  let v = leaf
  for (let i = 0; i < levels; i++) v = { a: v }
  return v
}

t.test('timestamps stored before 1970 are refused, naming the field (H9, H13, H26)', async (t) => {
  for (const ts of [
    '1969-12-31T23:59:59Z',
    '1900-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '1970-01-01T00:59:59+01:00',
  ]) {
    const r = validateSingle({ event: 'x', user: { id: 'u' }, timestamp: ts }, RECEIVED)
    t.notOk(r.ok, `single ${ts}`)
    if (!r.ok) {
      t.same(paths(r.errors), ['/timestamp'])
      t.match(r.errors[0]!.message, /before 1970-01-01T00:00:00Z/)
    }
    const [item] = batchOf([{ type: 'event', event: 'x', user: { id: 'u' }, timestamp: ts, sent_at: ts }])
    t.notOk(item!.ok, `batch item ${ts} with a sane sent_at`)
    if (!item!.ok) t.same(paths(item!.errors), ['/events/0/timestamp'])
  }
  t.ok(
    validateSingle({ event: 'x', user: { id: 'u' }, timestamp: '1970-01-01T00:00:00Z' }, RECEIVED).ok,
    'the epoch itself is storable',
  )
  // H13: far-future times are replaced by received_at and flagged, never rejected
  t.ok(
    validateSingle({ event: 'x', user: { id: 'u' }, timestamp: '2200-01-01T00:00:00Z' }, RECEIVED).ok,
    '2200 is accepted (flagged)',
  )
  t.ok(
    validateSingle({ event: 'x', user: { id: 'u' }, timestamp: '9999-12-31T23:59:59Z' }, RECEIVED).ok,
    '9999 is accepted (flagged)',
  )
})

t.test('the check is on the time H13 stores: clock-skew correction counts (H9, H13, H26)', async (t) => {
  // a device whose clock reads 1969 sends sent_at in 1969 too: corrected, the event is recent
  const [a] = batchOf(
    [{ type: 'event', event: 'x', user: { id: 'u' }, timestamp: '1969-12-31T23:00:00Z' }],
    '1969-12-31T23:30:00Z',
  )
  t.ok(a!.ok, 'pre-1970 client clock, corrected to 30 min before receipt')
  // a sent_at far ahead of the timestamp pushes the corrected time before 1970
  const [b, c] = batchOf(
    [
      { type: 'event', event: 'x', user: { id: 'u' }, timestamp: '2000-01-01T00:00:00Z' },
      { type: 'identify', user: { id: 'u' }, timestamp: '2000-01-01T00:00:00Z' },
    ],
    '2100-01-01T00:00:00Z',
  )
  t.notOk(b!.ok)
  if (!b!.ok) {
    t.same(paths(b!.errors), ['/events/0/timestamp'])
    t.match(b!.errors[0]!.message, /corrected for clock skew with sent_at .* is 1924-/)
  }
  t.notOk(c!.ok, 'identify items too')
  const [d] = batchOf([{ type: 'event', event: 'x', user: { id: 'u' } }], '0001-01-01T00:00:00Z')
  t.ok(d!.ok, 'an item without timestamp is stored at receipt whatever sent_at says')
})

t.test('sent_at is read as validation reads it: no offset means UTC', async (t) => {
  const r = validateBatch(
    { sent_at: '2024-05-01T12:00:00', events: [{ type: 'event', event: 'x', user: { id: 'u' } }] },
    RECEIVED,
  )
  t.ok(r.ok)
  if (r.ok) t.equal(r.sentAtMs, RECEIVED)
})

t.test('nesting deeper than 32 levels is a validation error, not a stack overflow (H25)', async (t) => {
  const errs = single({ event: 'x', user: { id: 'u' }, properties: deep(6000) as object })
  t.same(paths(errs), ['/properties'])
  t.match(errs[0]!.message, /more than 32 levels/)
  t.ok(
    validateSingle({ event: 'x', user: { id: 'u' }, properties: deep(32) as object }).ok,
    '32 levels counting properties itself',
  )
  t.same(paths(single({ event: 'x', user: { id: 'u' }, properties: deep(33) as object })), ['/properties'], '33 levels')
  t.same(paths(single({ event: 'x', user: { id: 'u' }, context: deep(6000) as object })), ['/context'])
  t.same(paths(single({ event: 'x', user: { id: 'u', traits: deep(6000) as object } })), ['/user/traits'])
  t.same(
    paths(single({ event: 'x', user: { id: 'u' }, extra: deep(6000) })),
    ['/extra'],
    'unknown fields are measured too',
  )
  let arr: unknown = []
  for (let i = 0; i < 100_000; i++) arr = [arr]
  t.same(paths(single({ event: 'x', user: { id: 'u' }, properties: { list: arr } })), ['/properties'], 'deep arrays')
  const [a, b, c] = batchOf([
    { type: 'event', event: 'x', user: { id: 'u' }, properties: deep(6000) },
    { type: 'identify', user: { id: 'u' }, traits: deep(6000) },
    { type: 'event', name: 'y', user: { id: 'u' }, properties: { ok: deep(5) } },
  ])
  t.same(!a!.ok && paths(a!.errors), ['/events/0/properties'])
  t.same(!b!.ok && paths(b!.errors), ['/events/1/traits'])
  t.ok(c!.ok, 'the other items of the batch stand')
})

t.test('unpaired surrogates and overflowing numbers are refused where they are (H9, H13, H26)', async (t) => {
  const lone = JSON.parse('"a\\ud800b"') as string
  const trail = JSON.parse('"\\udc00"') as string
  const pair = JSON.parse('"\\ud83d\\ude00"') as string
  t.ok(
    validateSingle({ event: `ok${pair}`, user: { id: pair }, properties: { [pair]: pair } }).ok,
    'a surrogate pair is fine',
  )
  t.same(paths(single({ event: lone, user: { id: 'u' } })), ['/event'])
  t.same(paths(single({ event: 'x', user: { id: trail } })), ['/user/id'])
  t.same(paths(single({ event: 'x', user: { id: 'u' }, message_id: lone })), ['/message_id'])
  t.same(paths(single({ event: 'x', user: { id: 'u' }, properties: { a: [{ b: lone }] } })), ['/properties'])
  t.same(paths(single({ event: 'x', user: { id: 'u' }, properties: { [lone]: 1 } })), ['/properties'], 'in a key')
  t.same(paths(single({ event: 'x', user: { id: 'u', traits: { [lone]: 1 } } })), ['/user/traits'], 'a trait key')
  t.same(paths(single({ event: 'x', user: { id: 'u' }, [lone]: 1 })), ['/' + lone], 'an unknown top-level key')
  t.same(
    paths(single({ event: 'x', user: { id: 'u' }, [lone]: deep(6000) })),
    ['/' + lone],
    'an unknown top-level key over a deep value: no stack overflow',
  )
  t.same(paths(single({ event: 'x', user: { id: 'u', [lone]: deep(6000) } })), ['/user/' + lone], 'the same under user')
  const big = JSON.parse('{"event":"x","user":{"id":"u"},"properties":{"n":1e400}}')
  t.same(paths(single(big)), ['/properties'], 'a number JSON.parse made Infinity')
  const [item] = batchOf([{ type: 'identify', user: { id: 'u' }, traits: { [lone]: 'v' } }])
  t.same(!item!.ok && paths(item!.errors), ['/events/0/traits'])
})

// ---- the hardening items: trait caps (H28), bidi controls (H29), e-mail (H30), __proto__ (H31)

const keysOf = (n: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]))
const itemErrors = (events: unknown[]) => {
  const r = validateBatch({ sent_at: SENT, events })
  if (!r.ok) throw new Error('the envelope is valid')
  return r.items.map((i) => (i.ok ? 'ok' : i.errors))
}

t.test('at most 100 top-level trait keys per item, counted on the merged traits of an identify (H28)', async (t) => {
  t.ok(validateSingle({ event: 'x', user: { id: 'u', traits: keysOf(100) } }).ok)
  t.same(single({ event: 'x', user: { id: 'u', traits: keysOf(101) } }), [
    { path: '/user/traits', message: 'user.traits has 101 keys; at most 100 are allowed' },
  ])
  const got = itemErrors([
    { type: 'identify', user: { id: 'u' }, traits: keysOf(100) },
    { type: 'identify', user: { id: 'u' }, traits: keysOf(2000) },
    { type: 'identify', user: { id: 'u', traits: keysOf(60, 'a') }, traits: keysOf(60, 'b') },
    { type: 'identify', user: { id: 'u', traits: keysOf(60) }, traits: keysOf(60) },
    { type: 'identify', user: { id: 'u', traits: keysOf(101) }, traits: keysOf(5) },
    { type: 'event', event: 'x', user: { id: 'u', traits: keysOf(101) } },
  ])
  t.equal(got[0], 'ok', '100 keys')
  t.same(got[1], [{ path: '/events/1/traits', message: 'traits has 2000 keys; at most 100 are allowed' }])
  t.same(got[2], [
    {
      path: '/events/2/traits',
      message: 'traits merged with user.traits have 120 keys (H10); at most 100 are allowed',
    },
  ])
  t.equal(got[3], 'ok', 'keys in both count once')
  t.same(
    got[4],
    [{ path: '/events/4/user/traits', message: 'user.traits has 101 keys; at most 100 are allowed' }],
    'reported once, where it is',
  )
  t.same(got[5], [{ path: '/events/5/user/traits', message: 'user.traits has 101 keys; at most 100 are allowed' }])
})

t.test('a trait key is at most 255 characters (H28)', async (t) => {
  t.ok(
    validateSingle({ event: 'x', user: { id: 'u', traits: { ['k'.repeat(255)]: 1, ['😀'.repeat(255)]: 2 } } }).ok,
    'code points, as names',
  )
  t.same(single({ event: 'x', user: { id: 'u', traits: { ok: 1, ['k'.repeat(256)]: 1 } } }), [
    {
      path: '/user/traits',
      message: `user.traits has a key of 256 characters ("${'k'.repeat(20)}"...); keys are at most 255 characters`,
    },
  ])
  const got = itemErrors([
    { type: 'identify', user: { id: 'u' }, traits: { ['😀'.repeat(256)]: 1 } },
    { type: 'event', event: 'x', user: { id: 'u' } },
  ])
  t.same(paths(got[0] as FieldError[]), ['/events/0/traits'])
  t.equal(got[1], 'ok', 'the other item is accepted')
})

t.test('bidirectional controls are refused in user ids and event names (H29)', async (t) => {
  for (const c of ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069']) {
    t.same(
      single({ event: 'x', user: { id: `admin${c}1` } }),
      [{ path: '/user/id', message: 'user.id must not contain bidirectional controls (U+202A-U+202E, U+2066-U+2069)' }],
      `U+${c.charCodeAt(0).toString(16)}`,
    )
    t.same(paths(single({ event: `sign${c}up`, user: { id: 'u' } })), ['/event'])
  }
  t.same(paths(itemErrors([{ type: 'event', name: 'a\u202Eb', user: { id: 'u' } }])[0] as FieldError[]), [
    '/events/0/name',
  ])
  t.ok(validateSingle({ event: 'تسجيل', user: { id: 'مستخدم' } }).ok, 'right-to-left text itself is fine')
  t.same(single({ event: 'x', user: { id: 'a\u202E\t' } }), [
    { path: '/user/id', message: 'user.id must not contain control characters' },
  ])
})

t.test('user ids are not normalized: the id is stored as sent (H29)', async (t) => {
  const nfd = 'Zoe\u0308'
  const r = validateSingle({ event: 'x', user: { id: nfd } })
  t.ok(r.ok && r.item.user.id === nfd)
})

t.test('e-mail addresses: plausible, at most 254 characters, no control characters (H30)', async (t) => {
  const email = (e: unknown) => validateSingle({ event: 'x', user: { id: 'u', email: e } })
  for (const e of ['a@example.com', 'first.last+tag@sub.example.co.uk', 'ü@exämple.de', 'a@localhost', ''])
    t.ok(email(e).ok, JSON.stringify(e))
  // The reported one: 20,013 bytes with NUL, tab and newline.
  const big = `${'a'.repeat(10000)}\u0000\t\n@${'b'.repeat(10000)}.com`
  t.same(single({ event: 'x', user: { id: 'u', email: big } }), [
    { path: '/user/email', message: 'user.email must be at most 254 characters, got 20008' },
  ])
  t.same(single({ event: 'x', user: { id: 'u', email: 'a\u0000@x.io' } }), [
    { path: '/user/email', message: 'user.email must not contain control characters' },
  ])
  t.same(single({ event: 'x', user: { id: 'u', email: 'a\u202E@x.io' } }), [
    {
      path: '/user/email',
      message: 'user.email must not contain bidirectional controls (U+202A-U+202E, U+2066-U+2069)',
    },
  ])
  for (const e of ['nobody', '@x.io', 'a@', 'a@b@c', 'a b@x.io', 'a@x.io\n', 'a@x\u00a0io']) {
    t.same(paths(single({ event: 'x', user: { id: 'u', email: e } })), ['/user/email'], JSON.stringify(e))
  }
  let spaces = 0
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c)
    if (!/\s/.test(ch)) continue
    spaces++
    if (email(`a${ch}b@x.io`).ok) t.fail(`white space U+${c.toString(16)} admitted`)
  }
  t.ok(spaces > 20, 'every white space character is refused, as the pattern spells them out')
  t.notOk(email(`${'a'.repeat(64)}@${'d'.repeat(190)}`).ok, '255 characters')
  t.ok(email(`${'a'.repeat(64)}@${'d'.repeat(189)}`).ok, '254 characters')
})

t.test('an email trait sets the profile e-mail (H10), so it is checked as user.email is (H30)', async (t) => {
  const got = itemErrors([
    { type: 'identify', user: { id: 'u' }, traits: { email: 'x\ny@z.io' } },
    { type: 'identify', user: { id: 'u', traits: { email: 'not an address' } } },
    { type: 'event', event: 'x', user: { id: 'u', traits: { email: 'e'.repeat(300) } } },
    { type: 'identify', user: { id: 'u' }, traits: { email: 42 } },
    { type: 'identify', user: { id: 'u' }, traits: { email: 'ok@z.io' } },
  ])
  t.same(paths(got[0] as FieldError[]), ['/events/0/traits/email'])
  t.same(paths(got[1] as FieldError[]), ['/events/1/user/traits/email'])
  t.same(paths(got[2] as FieldError[]), ['/events/2/user/traits/email'])
  t.equal(got[3], 'ok', 'a number is only a trait')
  t.equal(got[4], 'ok')
})

t.test('a batch item with both event and name checks both, and stores event (H10)', async (t) => {
  const got = itemErrors([
    { type: 'event', event: 'a', name: {}, user: { id: 'u' } },
    { type: 'event', event: 'a', name: 'b\u0000', user: { id: 'u' } },
    { type: 'event', event: '', name: 'b', user: { id: 'u' } },
  ])
  t.same(got[0], [{ path: '/events/0/name', message: 'name must be a string, got an object' }])
  t.same(got[1], [{ path: '/events/1/name', message: 'name must not contain control characters' }])
  t.same(
    got[2],
    [{ path: '/events/2/event', message: 'event must not be empty' }],
    'a bad event is not replaced by name',
  )
  const r = validateBatch({ sent_at: SENT, events: [{ type: 'event', event: 'a', name: 'b', user: { id: 'u' } }] })
  t.ok(r.ok && r.items[0]!.ok && r.items[0]!.item.kind === 'event' && r.items[0]!.item.event === 'a')
})

t.test('a __proto__ key fails only the item that holds it, naming the key (H31)', async (t) => {
  // JSON.parse makes __proto__ an own key, as the body reader does; an object literal would set the prototype.
  const good = (i: number) => `{"type":"event","event":"e${i}","user":{"id":"u"}}`
  const bad = [
    '{"type":"event","event":"x","user":{"id":"u"},"properties":{"__proto__":{"polluted":1}}}',
    '{"type":"event","event":"x","user":{"id":"u"},"context":{"a":[{"b":1},{"__proto__":1}]}}',
    '{"type":"identify","user":{"id":"u","traits":{"__proto__":{"email":"x@y.z"}}}}',
    '{"type":"identify","user":{"id":"u","__proto__":{"id":"v"}}}',
    '{"type":"identify","__proto__":{"traits":{}},"user":{"id":"u"}}',
  ]
  const body = JSON.parse(`{"sent_at":"${SENT}","events":[${[good(0), ...bad, good(6)].join(',')}]}`)
  const got = itemErrors(body.events)
  t.equal(got[0], 'ok')
  t.equal(got[6], 'ok')
  t.same(
    got.slice(1, 6).map((e) => paths(e as FieldError[])),
    [
      ['/events/1/properties/__proto__'],
      ['/events/2/context/a/1/__proto__'],
      ['/events/3/user/traits/__proto__'],
      ['/events/4/user/__proto__'],
      ['/events/5/__proto__'],
    ],
  )
  t.match((got[1] as FieldError[])[0]!.message, /"__proto__" key/)
  t.same(single(JSON.parse('{"event":"x","user":{"id":"u"},"properties":{"__proto__":{"a":1}}}')), [
    {
      path: '/properties/__proto__',
      message: 'properties holds a "__proto__" key, which is not accepted in any object of an item',
    },
  ])
  t.equal(({} as any).polluted, undefined, 'nothing reached Object.prototype')
  t.ok(
    validateSingle({ event: '__proto__', user: { id: '__proto__' }, properties: { k: '__proto__' } }).ok,
    'as a value it is text',
  )
})

// ---- H71: our own items may carry the visitor's anonymous id
t.test('anonymous_id: kept on events and identifies, checked as user.id is', async (t) => {
  const ok = validateSingle({ event: 'page_viewed', user: { id: 'anon_1' }, anonymous_id: 'anon_1' })
  t.same(ok.ok && ok.item.anonymous_id, 'anon_1', 'a single event keeps it')
  const b = validateBatch(
    {
      sent_at: '2024-05-01T12:00:00Z',
      events: [
        { type: 'identify', user: { id: 'ada' }, anonymous_id: 'anon_1' },
        { type: 'event', name: 'signed_up', user: { id: 'ada' }, anonymous_id: 'anon_1' },
        { type: 'event', name: 'no_anon', user: { id: 'ada' } },
        { type: 'event', name: 'bad', user: { id: 'ada' }, anonymous_id: '' },
        { type: 'identify', user: { id: 'ada' }, anonymous_id: 7 },
        { type: 'identify', user: { id: 'ada' }, anonymous_id: 'a\u202Eb' },
      ],
    },
    Date.parse('2024-05-01T12:00:00Z'),
  )
  if (!b.ok) throw new Error('envelope refused')
  t.same(
    b.items.map((r) => (r.ok ? (r.item.anonymous_id ?? null) : paths(r.errors))),
    ['anon_1', 'anon_1', null, ['/events/3/anonymous_id'], ['/events/4/anonymous_id'], ['/events/5/anonymous_id']],
  )
  t.same(
    single({ event: 'x', user: { id: 'u' }, anonymous_id: 'x'.repeat(256) }).map((e) => e.path),
    ['/anonymous_id'],
  )
})
