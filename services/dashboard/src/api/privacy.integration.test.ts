// The dashboard's erasure route (A12): a signed-in account erases one of its users and watches the
// receipt complete; the account comes from the session, another account sees nothing of it, and a
// request without a session is refused.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'

t.test('erase a user from the dashboard and watch the receipt', async (t) => {
  const s = await startDashboard(t)
  const c = s.client()
  await c.signUp()
  t.equal((await s.client().post('/api/erasures', { user_id: 'u1' })).status, 401, 'no session, no erasure')
  t.equal((await c.post('/api/erasures', { user_id: '' })).status, 400)
  t.equal((await c.post('/api/erasures', { user_id: 'u1', suppress: 'yes' })).status, 400)

  const asked = await c.post('/api/erasures', { user_id: 'u1', suppress: true })
  t.equal(asked.status, 202)
  t.match(asked.body.data, {
    user_id: 'u1',
    suppress: true,
    requested_by: /^dashboard:/,
    steps: { projections_purged_at: null },
  })

  // Sealing is on by default (A29), so both steps complete: the projections purged and the person's
  // keys tombstoned, which makes the Kafka history unreadable.
  let list = (await c.get('/api/erasures')).body.data
  const done = (steps: Record<string, string | null> | undefined) =>
    steps?.projections_purged_at != null && steps?.history_unreadable_at != null
  await waitUntil(
    async () => done((list = (await c.get('/api/erasures')).body.data)[0]?.steps),
    60_000,
    'the receipt says the projections are purged and the history unreadable',
  )
  t.equal(list.length, 1)
  t.equal(list[0].erasure_id, asked.body.data.erasure_id)
  t.ok(Date.parse(list[0].steps.projections_purged_at) >= Date.parse(list[0].requested_at))
  t.ok(Date.parse(list[0].steps.history_unreadable_at) >= Date.parse(list[0].requested_at))

  const one = await c.get(`/api/erasures/${asked.body.data.erasure_id}`)
  t.equal(one.status, 200)
  t.same(one.body.data, list[0], 'one receipt, as the list shows it')
  t.equal((await c.get('/api/erasures/no-such-id')).status, 404)

  const other = s.client()
  await other.signUp()
  t.same((await other.get('/api/erasures')).body.data, [], 'another account sees none of it')
  t.equal((await other.get(`/api/erasures/${asked.body.data.erasure_id}`)).status, 404, 'nor its receipt')
})

t.test('an account sets how long its events are kept (H60)', async (t) => {
  const s = await startDashboard(t)
  const c = s.client()
  t.equal((await c.get('/api/retention')).status, 401, 'no session, no setting')
  await c.signUp()
  t.same((await c.get('/api/retention')).body.data, { months: 0 }, 'for ever by default')
  for (const months of [-1, 1.5, 121, '12']) t.equal((await c.post('/api/retention', { months })).status, 400)
  const set = await c.post('/api/retention', { months: 12 })
  t.equal(set.status, 200)
  t.same(set.body.data, { months: 12 })
  const accountId = (await c.get('/api/me')).body.data.account_id
  t.equal(s.admin.accounts.get(accountId)?.retention_months, 12, 'stored on the account record')
  t.same((await c.get('/api/retention')).body.data, { months: 12 })
  const other = s.client()
  await other.signUp()
  t.same((await other.get('/api/retention')).body.data, { months: 0 }, 'another account keeps its own')
})
