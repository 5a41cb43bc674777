import t from 'tap'
import { buildAlias, buildEvent, buildIdentify } from '../src/items.js'

const env = { now: new Date('2024-05-01T12:00:00.000Z'), newId: () => 'id-1', context: { library: { name: 'x' } } }

t.test('an event gets its message_id and timestamp when it is created', async (t) => {
  const e = buildEvent('signup_completed', { plan: 'pro' }, { user: 'user_1' }, env)
  t.same(e, {
    type: 'event',
    event: 'signup_completed',
    user: { id: 'user_1' },
    timestamp: '2024-05-01T12:00:00.000Z',
    message_id: 'id-1',
    properties: { plan: 'pro' },
    context: { library: { name: 'x' } },
  })
  const own = buildEvent(
    'x',
    undefined,
    {
      user: { id: 'u', email: 'a@b.c' },
      messageId: 'm',
      timestamp: '2024-01-01T00:00:00Z',
      context: { app_version: '1' },
    },
    env,
  )
  t.equal(own.message_id, 'm')
  t.equal(own.timestamp, '2024-01-01T00:00:00Z')
  t.same(own.context, { library: { name: 'x' }, app_version: '1' })
  t.same(own.user, { id: 'u', email: 'a@b.c' })
})

t.test('the client user is the default', async (t) => {
  t.same(buildEvent('x', undefined, {}, { ...env, user: { id: 'me' } }).user, { id: 'me' })
  t.same(buildEvent('x', undefined, { user: 'other' }, { ...env, user: { id: 'me' } }).user, { id: 'other' })
})

t.test('programmer errors throw TypeError at once', async (t) => {
  t.throws(() => buildEvent('', undefined, { user: 'u' }, env), TypeError)
  t.throws(() => buildEvent('x'.repeat(256), undefined, { user: 'u' }, env), TypeError)
  t.throws(() => buildEvent('x', undefined, {}, env), TypeError, 'no user')
  t.throws(() => buildEvent('x', undefined, { user: '' }, env), TypeError)
  t.throws(() => buildEvent('x', undefined, { user: 'u', messageId: 'm'.repeat(101) }, env), TypeError)
})

t.test('identify puts traits at the top level and email on the user', async (t) => {
  t.same(buildIdentify('u1', { plan: 'pro' }, { email: 'a@b.c' }, env), {
    type: 'identify',
    user: { id: 'u1', email: 'a@b.c' },
    timestamp: '2024-05-01T12:00:00.000Z',
    message_id: 'id-1',
    traits: { plan: 'pro' },
    context: { library: { name: 'x' } },
  })
})

t.test("the client's anonymous id rides on every item; alias links the previous id (H50, H71)", async (t) => {
  const anon = { ...env, anonymousId: 'anon_1' }
  t.equal(buildEvent('page_viewed', undefined, { user: 'anon_1' }, anon).anonymous_id, 'anon_1')
  t.equal(buildIdentify('ada', { plan: 'pro' }, {}, anon).anonymous_id, 'anon_1', 'the identify links it')
  t.notOk('anonymous_id' in buildEvent('x', undefined, { user: 'u' }, env), 'none without one')
  t.same(buildAlias('old_id', 'ada', {}, anon), {
    type: 'identify',
    user: { id: 'ada' },
    timestamp: '2024-05-01T12:00:00.000Z',
    message_id: 'id-1',
    context: { library: { name: 'x' } },
    anonymous_id: 'old_id',
  })
  t.throws(() => buildAlias('', 'ada', {}, env), TypeError)
  t.throws(() => buildAlias('old', '', {}, env), TypeError)
})
