// Keys are bounded (U5): an account holds at most KEYS_MAX_PER_ACCOUNT keys that are not revoked
// (409 KEY_LIMIT_REACHED beyond, also for a parallel burst), and key changes are limited per
// account per minute (429 with Retry-After), whichever session makes them.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'

t.test('key creation is capped and key changes are rate limited', async (t) => {
  const s = await startDashboard(t, { env: { KEYS_MAX_PER_ACCOUNT: '3', KEY_CHANGES_PER_MINUTE: '9' } })

  t.test('a parallel burst stops at the cap; a revoked key frees its place', async (t) => {
    const c = s.client()
    const { accountId } = await c.signUp()
    // Nine changes: five creations (two refused, still counted), then deactivate, create, revoke, create.
    const burst = await Promise.all(
      Array.from({ length: 5 }, (_, i) => c.post('/api/keys', { name: `k${i}`, type: 'live' })),
    )
    t.same(burst.map((r) => r.status).sort(), [201, 201, 201, 409, 409])
    const refused = burst.find((r) => r.status === 409)!
    t.match(refused.body.error, { code: 'KEY_LIMIT_REACHED', details: { limit: 3 } })
    t.equal(s.dashboard.deps.admin.keysOf(accountId).length, 3, 'three key records on the accounts topic')
    const first = burst.find((r) => r.status === 201)!.body.data
    t.equal((await c.post(`/api/keys/${first.key_id}/deactivate`)).status, 200)
    t.equal((await c.post('/api/keys', { name: 'again', type: 'live' })).status, 409, 'an inactive key still counts')
    t.equal((await c.post(`/api/keys/${first.key_id}/revoke`)).status, 200)
    t.equal((await c.post('/api/keys', { name: 'again', type: 'live' })).status, 201, 'a revoked one does not')
  })

  t.test('key changes per account per minute', async (t) => {
    const c = s.client()
    const { email, password } = await c.signUp()
    const other = s.client()
    t.equal((await other.post('/api/signin', { email, password })).status, 200)
    const k = (await c.post('/api/keys', { name: 'k', type: 'test' })).body.data
    const statuses: number[] = []
    for (let i = 0; i < 8; i++)
      statuses.push(
        (await (i % 2 ? other : c).post(`/api/keys/${k.key_id}/${i % 2 ? 'reactivate' : 'deactivate'}`)).status,
      )
    t.same(
      statuses,
      [200, 200, 200, 200, 200, 200, 200, 200],
      'nine changes in the minute (a creation and eight status changes) are allowed',
    )
    const limited = await other.post('/api/keys', { name: 'k2', type: 'test' })
    t.equal(limited.status, 429, 'the tenth is refused, from another session of the account too')
    t.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED')
    t.ok(Number(limited.headers.get('retry-after')) > 0, 'with Retry-After')
    t.equal((await c.post(`/api/keys/${k.key_id}/revoke`)).status, 429)
    t.equal((await c.get('/api/keys')).status, 200, 'listing keys is not a change')
    const stranger = s.client()
    await stranger.signUp()
    t.equal(
      (await stranger.post('/api/keys', { name: 'k', type: 'live' })).status,
      201,
      'another account has its own budget',
    )
  })
})
