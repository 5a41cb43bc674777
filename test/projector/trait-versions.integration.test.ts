// A client clock ahead of the server cannot pin a user's traits or profile email (H39): an event
// 23 h ahead with traits, then an identify a moment later, through ingest and the projector.
import t from 'tap'
import { startServices } from '../support/harness.js'

const iso = (ms: number) => new Date(ms).toISOString()

t.test('an event from a clock 23 h ahead does not outrank a later identify (H39)', async (t) => {
  const s = await startServices(t)
  const db = s.database
  const { key, accountId } = await s.createKey({ type: 'live' })

  const ahead = await s.post(
    '/v1/event',
    {
      event: 'page_viewed',
      user: { id: 'victim', traits: { plan: 'pro-PINNED', email: 'attacker@evil.test' } },
      timestamp: iso(Date.now() + 23 * 3600_000),
    },
    { key },
  )
  t.equal(ahead.status, 200)
  // Stored first, so the identify is received after it.
  await s.waitForRows(`SELECT event_id FROM ${db}.events FINAL WHERE account_id = '${accountId}'`)

  const identify = await s.post(
    '/v1/events',
    {
      sent_at: iso(Date.now()),
      events: [{ type: 'identify', user: { id: 'victim' }, traits: { plan: 'free', email: 'real@user.test' } }],
    },
    { key },
  )
  t.equal(identify.status, 200)
  // Its trait rows and its identifies row stored: they are separate inserts, in no fixed order. The profile
  // email reaches `users` through the identifies insert's materialized view, whose part ClickHouse commits
  // after the identifies part: wait for the identify's own `users` row (its state alone names its email).
  const identifyId = identify.body.data.results[0].event_id
  await s.waitForRows(`SELECT trait_key FROM ${db}.user_traits WHERE source_event_id = '${identifyId}'`, 2)
  await s.waitForRows(`SELECT event_id FROM ${db}.identifies WHERE event_id = '${identifyId}'`)
  await s.waitForRows(
    `SELECT 1 FROM ${db}.users WHERE account_id = '${accountId}' AND user_id = 'victim' AND finalizeAggregation(email_state) = 'real@user.test'`,
  )

  const traits = await s.query<{ trait_key: string; value: string }>(
    `SELECT trait_key, value FROM ${db}.user_traits FINAL WHERE account_id = '${accountId}' AND user_id = 'victim' ORDER BY trait_key`,
  )
  t.same(
    Object.fromEntries(traits.map((r) => [r.trait_key, JSON.parse(r.value)])),
    { email: 'real@user.test', plan: 'free' },
    'the identify sets the traits',
  )
  const users = await s.query<{ email: string }>(
    `SELECT email FROM ${db}.users_view WHERE account_id = '${accountId}' AND user_id = 'victim'`,
  )
  t.same(users, [{ email: 'real@user.test' }], 'the identify sets the profile email')
})
