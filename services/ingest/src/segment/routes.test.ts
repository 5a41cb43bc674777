import t from 'tap'
import { checkMessages } from './routes.js'

const NOW = Date.UTC(2025, 0, 1, 12)

t.test('a batch: each message validated as a /v1/events item, in place, with its anonymous id (H52)', async (t) => {
  const c = checkMessages(
    {
      batch: [
        { type: 'page', anonymousId: 'a1', name: 'Home' },
        { type: 'track', userId: 'u1' },
        { type: 'identify', userId: 'u1', anonymousId: 'a1', messageId: 'x'.repeat(101) },
        { type: 'alias', userId: 'u1', previousId: 'a0' },
      ],
      sentAt: '2025-01-01T12:00:00Z',
    },
    undefined,
    NOW,
  )
  if (!c.ok) throw new Error('envelope refused')
  t.equal(c.sentAtMs, NOW)
  t.same(
    c.items.map((r) => [r.index, r.ok]),
    [
      [0, true],
      [1, false],
      [2, false],
      [3, true],
    ],
  )
  t.equal(c.items[0]!.ok && c.items[0]!.item.anonymous_id, 'a1')
  t.equal(c.items[3]!.ok && c.items[3]!.item.anonymous_id, 'a0', 'an alias links previousId')
  t.match(
    !c.items[1]!.ok && c.items[1]!.errors[0]!.path,
    '/batch/1/event',
    'our rule (an event needs a name), at the message path',
  )
  t.match(!c.items[2]!.ok && c.items[2]!.errors[0]!.path, '/batch/2/messageId')
})

t.test('no sentAt: the time of receipt, so no skew correction (H13)', async (t) => {
  const c = checkMessages({ userId: 'u', event: 'x', timestamp: '2025-01-01T11:00:00Z' }, 'track', NOW)
  t.equal(c.ok && c.sentAtMs, NOW)
})

t.test('envelope refusals', async (t) => {
  for (const [body, type, path] of [
    [[], 'track', ''],
    [{ batch: {} }, undefined, '/batch'],
    [{ batch: [] }, undefined, '/batch'],
    [{ batch: [{ type: 'track', userId: 'u', event: 'x' }], sentAt: 'yesterday' }, undefined, '/sentAt'],
    [{ batch: Array.from({ length: 101 }, () => ({ type: 'track', userId: 'u', event: 'x' })) }, undefined, '/batch'],
  ] as const) {
    const c = checkMessages(body, type as any, NOW)
    t.equal(c.ok, false, JSON.stringify(body).slice(0, 60))
    if (!c.ok) t.equal(c.errors[0]!.path, path)
  }
})
