import t from 'tap'
import { GROUP_EVENT, PAGE_EVENT, SCREEN_EVENT, segmentPath, toItem } from './to-items.js'

const ok = (m: ReturnType<typeof toItem>) => {
  if (!m.ok) throw new Error(JSON.stringify(m.errors))
  return m
}

t.test('track: our event item; userId is the user, anonymousId kept beside it (H52)', async (t) => {
  const m = ok(
    toItem(
      {
        userId: 'u1',
        anonymousId: 'a1',
        event: 'signup',
        properties: { plan: 'pro' },
        context: { os: { name: 'iOS' } },
        integrations: { All: true },
        messageId: 'm1',
        timestamp: '2025-01-01T00:00:00Z',
      },
      'track',
      '',
    ),
  )
  t.same(m.item, {
    user: { id: 'u1' },
    context: { os: { name: 'iOS' } },
    timestamp: '2025-01-01T00:00:00Z',
    message_id: 'm1',
    type: 'event',
    event: 'signup',
    properties: { plan: 'pro' },
  })
  t.equal(m.anonymousId, 'a1')
})

t.test('an anonymous visitor is stored under its anonymous id (H52)', async (t) => {
  const m = ok(toItem({ anonymousId: 'a1', event: 'x' }, 'track', ''))
  t.same(m.item.user, { id: 'a1' })
  t.equal(m.anonymousId, 'a1')
  t.same(ok(toItem({ userId: 42, event: 'x' }, 'track', '')).item.user, { id: '42' }, 'a numeric id as text')
})

t.test('originalTimestamp stands in for a missing timestamp', async (t) => {
  t.equal(
    ok(toItem({ userId: 'u', event: 'x', originalTimestamp: '2025-01-01T00:00:00Z' }, 'track', '')).item.timestamp,
    '2025-01-01T00:00:00Z',
  )
})

t.test('page and screen: named events with name and category in the properties (H49)', async (t) => {
  const p = ok(
    toItem(
      { anonymousId: 'a', name: 'Home', category: 'Docs', properties: { url: 'https://x/', name: 'Kept' } },
      'page',
      '',
    ),
  )
  t.equal(p.item.event, PAGE_EVENT)
  t.same(
    p.item.properties,
    { name: 'Kept', category: 'Docs', url: 'https://x/' },
    'properties win over the call fields',
  )
  const s = ok(toItem({ userId: 'u', name: 'Settings' }, 'screen', ''))
  t.equal(s.item.event, SCREEN_EVENT)
  t.same(s.item.properties, { name: 'Settings' })
})

t.test('identify: an identify item with traits; alias: an identify linking previousId (H50)', async (t) => {
  const i = ok(toItem({ userId: 'u', anonymousId: 'a', traits: { email: 'e@x.co' } }, 'identify', ''))
  t.same([i.item.type, i.item.traits, i.anonymousId], ['identify', { email: 'e@x.co' }, 'a'])
  const a = ok(toItem({ userId: 'u2', previousId: 'u1' }, 'alias', ''))
  t.same([a.item.type, a.item.user, a.item.traits, a.anonymousId], ['identify', { id: 'u2' }, {}, 'u1'])
})

t.test('group: the group event with group_id and traits (H51)', async (t) => {
  const g = ok(toItem({ type: 'group', userId: 'u', groupId: 'acme', traits: { name: 'Acme' } }, undefined, '/batch/0'))
  t.same([g.item.event, g.item.properties], [GROUP_EVENT, { group_id: 'acme', traits: { name: 'Acme' } }])
})

t.test('refusals name the Segment field', async (t) => {
  const cases: Array<[unknown, string | undefined, RegExp]> = [
    [{ event: 'x' }, 'track', /userId or anonymousId/],
    [{ userId: '', anonymousId: null, event: 'x' }, 'track', /userId or anonymousId/],
    [{ userId: 'u' }, 'alias', /previousId/],
    [{ userId: 'u' }, 'group', /groupId/],
    [{ type: 'launch', userId: 'u' }, undefined, /type must be one of/],
    [{ userId: 'a\u0000b', event: 'x' }, 'track', /control/],
    [{ userId: 'x'.repeat(256), event: 'x' }, 'track', /at most 255/],
    [{ userId: { id: 1 }, event: 'x' }, 'track', /must be a string/],
    ['text', 'track', /JSON object/],
  ]
  for (const [msg, type, re] of cases) {
    const m = toItem(msg, type as any, '/batch/3')
    t.equal(m.ok, false, JSON.stringify(msg))
    if (!m.ok) t.match(m.errors[0]!.message, re)
  }
})

t.test('ids are measured in characters, as user.id is (H64): 255 astral characters are one name', async (t) => {
  const id = '\u{1F600}'.repeat(255)
  const m = ok(toItem({ userId: id, event: 'x' }, 'track', ''))
  t.same((m.item.user as { id: string }).id, id)
  t.equal(toItem({ userId: `${id}\u{1F600}`, event: 'x' }, 'track', '').ok, false, '256 characters')
})

t.test('the batch context sits under each message context', async (t) => {
  t.same(ok(toItem({ userId: 'u', event: 'x', context: { a: 1 } }, 'track', '', { a: 0, b: 2 })).item.context, {
    a: 1,
    b: 2,
  })
  t.same(ok(toItem({ userId: 'u', event: 'x' }, 'track', '', { b: 2 })).item.context, { b: 2 })
})

t.test('our paths in Segment spelling', async (t) => {
  t.equal(segmentPath('/events/2/user/id', false), '/batch/2/userId')
  t.equal(segmentPath('/events/0/message_id', true), '/messageId')
  t.equal(segmentPath('/events/0/properties/a', true), '/properties/a')
})
