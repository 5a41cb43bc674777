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
      timestamp: '2024-05-01T12:30:00.123+02:00',
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
  t.same(paths(errors), ['/event', '/user/id', '/user/email', '/user/traits', '/timestamp', '/context', '/message_id', '/properties'])
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
  t.same(single({ event: 'x', user: 12 }), [{ path: '/user', message: 'user must be an object {"id": "<user id>"}, got a number' }])
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
  t.same(env({ sent_at: SENT, events: many }), [{ path: '/events', message: 'events must contain at most 100 items, got 101' }])
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
  t.same(r.items.map((i) => [i.index, i.ok]), [
    [0, true],
    [1, true],
    [2, false],
    [3, false],
    [4, false],
    [5, false],
    [6, false],
    [7, true],
  ])
  const [a, b, c, d, e, f, g, h] = r.items
  t.same(a!.ok && a!.item, { kind: 'event', event: 'via_name', user: { id: 'u1' }, properties: { a: 1 }, context: {} })
  t.same(b!.ok && b!.item, {
    kind: 'event',
    event: 'via_event',
    user: { id: 'u2' },
    timestamp: '2024-05-01T11:59:00Z',
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
  if (r.ok) t.same(!r.items[0]!.ok && r.items[0]!.errors, [{ path: '/events/0/name', message: 'name must not contain control characters' }])
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
    timestamp: '2024-05-01T11:00:00Z',
    context: { locale: 'de' },
    message_id: 'id-1',
  })
  t.strictSame(items[1], { kind: 'identify', user: { id: 'u2', email: 'user@x.co' }, traits: {}, email: 'user@x.co', context: {} })
  t.same(items[2], { kind: 'identify', user: { id: 'u3' }, traits: { email: 'inner@x.co' }, email: 'inner@x.co', context: {} })
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
