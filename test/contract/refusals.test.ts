// Refused requests reach their account (H65): the error middleware records each client refusal of an
// authenticated request for that account, with a key-free sample; a request whose key did not
// authenticate is recorded for nobody. In-process against fakes (test/support/in-process-ingest.ts).
import t from 'tap'
import { startInProcessIngest } from '../support/in-process-ingest.js'

t.test('a refused request of a valid key is counted for its account, with a key-free sample', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey({ account: 'acct_dev' })
  const r = await s.post('/v1/event', { user: { id: 'u1' }, properties: { pasted: key } }, key)
  t.equal(r.status, 400)
  const b = s.refusals.drain()
  t.match(b.counts, [
    { accountId: 'acct_dev', environment: 'live', code: r.body.error.code, endpoint: '/v1/event', count: 1 },
  ])
  t.equal(b.samples.length, 1)
  t.match(b.samples[0], { accountId: 'acct_dev', code: r.body.error.code, message: r.body.error.message })
  t.match(b.samples[0]!.body, /"user":\{"id":"u1"\}/, 'the body is kept')
  t.notOk(JSON.stringify(b).includes(key), 'the key is in no recorded byte')
})

t.test('an unknown key, no key and accepted requests record nothing', async (t) => {
  const s = await startInProcessIngest(t)
  const key = s.addKey()
  t.equal((await s.post('/v1/event', { event: 'e', user: { id: 'u1' } }, key)).status, 200)
  t.equal((await s.post('/v1/event', {}, 'svc_live_' + 'x'.repeat(40))).status, 401)
  t.equal((await s.post('/v1/event', {})).status, 401)
  const b = s.refusals.drain()
  t.same(b.counts, [])
  t.same(b.samples, [])
})

t.test('a flood of one account keeps its counts in one record and leaves other accounts out', async (t) => {
  const s = await startInProcessIngest(t)
  const flood = s.addKey({ account: 'acct_flood', plan: 'enterprise' })
  s.addKey({ account: 'acct_quiet' })
  // Fewer than the refused-request guard's allowance, past which the key is throttled before it authenticates.
  for (let i = 0; i < 8; i++) await s.post('/v1/event', '{not json', flood)
  const b = s.refusals.drain()
  t.same(
    b.counts.map((c) => [c.accountId, c.code, c.count]),
    [['acct_flood', 'INVALID_JSON', 8]],
  )
  t.ok(b.samples.length <= 5, 'samples capped per account')
  t.ok(b.samples.every((x) => x.accountId === 'acct_flood'))
})
