// The dashboard API against the real stack: sign-up/in/out, CSRF refusal, login throttling, key
// management through the accounts topic reaching the ingest, and account isolation of keys,
// events, users and the live stream.
import t from 'tap'
import { startDashboard } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'
import { eventRow } from '../../../../test/support/event-rows.js'

t.test('dashboard API', async (t) => {
  const s = await startDashboard(t, { env: { LOGIN_MAX_FAILURES: '3' } })

  t.test('health', async (t) => {
    const r = await fetch(`${s.dashboardUrl}/health`)
    t.equal(r.status, 200)
    t.match(await r.json(), { status: 'ok', checks: { clickhouse: { ok: true } } })
  })

  t.test('sign-up, me, sign-out, sign-in, wrong password, throttle', async (t) => {
    const c = s.client()
    t.equal((await c.get('/api/me')).status, 401, 'no session yet')
    const { email, password, accountId } = await c.signUp()
    await waitUntil(
      () => s.admin.accounts.has(accountId),
      10_000,
      'the account record to reach another follower of the accounts topic',
    )
    const acct = s.admin.accounts.get(accountId)
    t.ok(acct, 'the account is a record on the accounts topic')
    t.equal(acct!.owner_email, email)
    t.match(acct!.password_hash, /^scrypt\$/)
    t.notMatch(JSON.stringify(acct), password, 'the password itself is stored nowhere')
    const me = await c.get('/api/me')
    t.equal(me.status, 200)
    t.match(me.body.data, { account_id: accountId, email, plan: 'hobby' })

    const again = await s.client().post('/api/signup', { email: email.toUpperCase(), password: 'another password' })
    t.equal(again.status, 409, 'one account per email, case-insensitively')

    t.equal((await c.post('/api/signout')).status, 200)
    t.equal((await c.get('/api/me')).status, 401, 'signed out')

    const wrong = await c.post('/api/signin', { email, password: 'not the password' })
    t.equal(wrong.status, 401)
    t.equal(wrong.body.error.code, 'INVALID_CREDENTIALS')
    const unknown = await c.post('/api/signin', { email: 'nobody@example.com', password: 'whatever1' })
    t.equal(unknown.body.error.code, 'INVALID_CREDENTIALS', 'same answer for an unknown email')
    const ok = await c.post('/api/signin', { email, password })
    t.equal(ok.status, 200)
    t.equal((await c.get('/api/me')).body.data.account_id, accountId)
    const cookie = ok.headers.getSetCookie().find((x) => x.startsWith('dash_session='))!
    t.match(cookie, /httponly/i)
    t.match(cookie, /samesite=strict/i)

    const other = s.client()
    for (let i = 0; i < 3; i++)
      t.equal((await other.post('/api/signin', { email, password: `bad-${i}-password` })).status, 401)
    const blocked = await other.post('/api/signin', { email, password })
    t.equal(blocked.status, 429, 'throttled even with the right password')
    t.equal(blocked.body.error.code, 'TOO_MANY_ATTEMPTS')
    t.ok(Number(blocked.headers.get('retry-after')) > 0)

    const forged = s.client()
    forged.cookies.set(
      'dash_session',
      c.cookies.get('dash_session')!.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')),
    )
    t.equal((await forged.get('/api/me')).status, 401, 'a tampered session cookie is no session')
  })

  t.test('validation of sign-up', async (t) => {
    const c = s.client()
    t.equal((await c.post('/api/signup', { email: 'not-an-email', password: 'long enough pw' })).status, 400)
    t.equal((await c.post('/api/signup', { email: 'short@example.com', password: 'short' })).status, 400)
    t.equal((await c.post('/api/signup', { email: ['x'], password: 'long enough pw' })).status, 400)
  })

  t.test('CSRF: state-changing requests need the token and our origin', async (t) => {
    const c = s.client()
    await c.signUp()
    const noToken = await c.post('/api/keys', { name: 'k', type: 'live' }, { csrf: null })
    t.equal(noToken.status, 403)
    t.equal(noToken.body.error.code, 'CSRF_REJECTED')
    const wrongToken = await c.post('/api/keys', { name: 'k', type: 'live' }, { csrf: 'forged.token' })
    t.equal(wrongToken.status, 403)
    const crossOrigin = await c.post('/api/keys', { name: 'k', type: 'live' }, { origin: 'http://evil.example' })
    t.equal(crossOrigin.status, 403)
    t.equal(
      (await s.client().post('/api/signin', { email: 'a@b.co', password: 'whatever1' }, { csrf: null })).status,
      403,
      'sign-in too (login CSRF)',
    )
    t.equal((await c.post('/api/signout', {}, { csrf: null })).status, 403)
    t.equal(c.cookies.has('dash_session'), true, 'still signed in')
    t.equal(s.admin.keysOf((await c.get('/api/me')).body.data.account_id).length, 0, 'no key was created')
    t.equal((await c.post('/api/keys', { name: 'k', type: 'live' })).status, 201, 'with token and origin it works')
  })

  t.test('keys: create (secret once), works at ingest, deactivate, reactivate, revoke', async (t) => {
    const c = s.client()
    const { accountId } = await c.signUp()
    const created = await c.post('/api/keys', { name: 'server', type: 'live' })
    t.equal(created.status, 201)
    const key = created.body.data
    t.match(key.secret, /^svc_live_[A-Za-z0-9]{32,}$/)
    // The key record is on the accounts topic: the harness's own follower sees it shortly after.
    await waitUntil(
      () => s.admin.keys.has(key.key_id),
      10_000,
      'the key record to reach another follower of the accounts topic',
    )
    t.equal(s.admin.keys.get(key.key_id)?.account_id, accountId)
    const list = await c.get('/api/keys')
    t.equal(list.body.data.length, 1)
    t.notOk('secret' in list.body.data[0], 'the list never shows the secret')
    t.notOk(JSON.stringify(list.body).includes(key.secret))
    t.match(list.body.data[0], { name: 'server', type: 'live', status: 'active', masked: /^svc_live_/ })

    const send = () => s.post('/v1/event', { event: 'page_viewed', user: { id: 'u1' } }, { key: key.secret })
    await waitUntil(async () => (await send()).status === 200, 10_000, 'the new key to work at the ingest')
    t.equal((await c.post(`/api/keys/${key.key_id}/deactivate`)).body.data.status, 'inactive')
    await waitUntil(async () => (await send()).status === 401, 10_000, 'the inactive key to be refused')
    t.equal((await c.post(`/api/keys/${key.key_id}/reactivate`)).body.data.status, 'active')
    await waitUntil(async () => (await send()).status === 200, 10_000, 'the reactivated key to work')
    await waitUntil(
      async () => (await c.get('/api/keys')).body.data[0].last_used_at !== null,
      15_000,
      'a last-used time',
    )
    t.equal((await c.post(`/api/keys/${key.key_id}/revoke`)).body.data.status, 'revoked')
    await waitUntil(async () => (await send()).status === 401, 10_000, 'the revoked key to be refused')
    t.equal((await send()).body.error.code, 'INVALID_API_KEY')
    t.equal((await c.post(`/api/keys/${key.key_id}/reactivate`)).status, 409, 'a revoked key cannot come back')
    t.equal((await c.post(`/api/keys/${key.key_id}/explode`)).status, 404)
    t.equal((await c.post('/api/keys', { name: 'x', type: 'prod' })).status, 400)
  })

  t.test("one account never reads another account's keys, events, users, definitions or live stream", async (t) => {
    const alice = s.client()
    const bob = s.client()
    const a = await alice.signUp()
    await bob.signUp()
    const aKey = (await alice.post('/api/keys', { name: 'alice live', type: 'live' })).body.data
    await bob.post('/api/keys', { name: 'bob test', type: 'test' })

    t.same(
      (await bob.get('/api/keys')).body.data.map((k: any) => k.name),
      ['bob test'],
    )
    t.equal((await bob.post(`/api/keys/${aKey.key_id}/revoke`)).status, 404, "bob cannot revoke alice's key")
    await waitUntil(() => s.admin.keys.has(aKey.key_id), 10_000, "alice's key record to reach another follower")
    t.equal(s.admin.keys.get(aKey.key_id)?.status, 'active')

    const aliceLive = await alice.openLive()
    const bobLive = await bob.openLive(`?account_id=${encodeURIComponent(a.accountId)}`)
    t.equal(aliceLive.status, 200)
    t.equal(bobLive.status, 200)
    t.teardown(() => (aliceLive.close(), bobLive.close()))

    await waitUntil(
      async () =>
        (
          await s.post(
            '/v1/event',
            {
              event: 'secret_thing',
              user: { id: 'alice_user', email: 'al@x.io', traits: { plan: 'pro' } },
              properties: { n: 1 },
            },
            { key: aKey.secret },
          )
        ).status === 200,
      10_000,
      "alice's key to work",
    )
    await waitUntil(
      () => aliceLive.items.some((i) => i.event === 'secret_thing'),
      15_000,
      'alice to see her event live',
    )
    const item = aliceLive.items.find((i) => i.event === 'secret_thing')
    t.match(item, { account_id: a.accountId, user_id: 'alice_user', environment: 'live', properties: { n: 1 } })

    await waitUntil(
      async () => (await alice.get('/api/events')).body.data.length > 0,
      15_000,
      "alice's event in the explorer",
    )
    // The profile and the persons list read `users`, which a materialized view fills from the events
    // insert: ClickHouse commits its part after the events part, so wait for it too.
    await s.waitForRows(
      `SELECT 1 FROM ${s.database}.users WHERE account_id = '${a.accountId}' AND user_id = 'alice_user'`,
    )
    const aEvents = (await alice.get('/api/events?event=secret_thing&environment=live')).body.data
    t.equal(aEvents.length, 1)
    t.equal(aEvents[0].user_id, 'alice_user')
    t.same((await alice.get('/api/top-events')).body.data, [{ event: 'secret_thing', events: 1, users: 1 }])
    const profile = (await alice.get('/api/users/alice_user')).body.data
    t.match(profile.profiles, [{ environment: 'live', email: 'al@x.io', traits: { plan: 'pro' } }])
    t.equal(profile.recent_events.length, 1)

    t.equal((await alice.get('/api/live/history')).body.data[0]?.event, 'secret_thing', "alice's Live history")
    t.match(
      (await alice.get('/api/definitions')).body.data,
      {
        events: [{ event: 'secret_thing', total: 1, properties: [{ key: 'n', types: ['number'] }] }],
        traits: [{ key: 'plan', users: 1 }],
      },
      "alice's definitions",
    )
    t.match(
      (await alice.get('/api/persons?q=AL@X')).body.data,
      { persons: [{ user_id: 'alice_user', email: 'al@x.io', environments: ['live'] }], next: null },
      "alice's persons, found by email",
    )
    t.same(
      (await alice.get('/api/events?event_contains=secret')).body.data.map((e: any) => e.event),
      ['secret_thing'],
      'a substring of the name finds the event',
    )
    t.same((await bob.get('/api/events')).body.data, [], 'bob sees no events')
    t.same((await bob.get('/api/live/history')).body.data, [], "bob's Live history is empty")
    t.same(
      (await bob.get(`/api/definitions?account_id=${a.accountId}`)).body.data,
      { events: [], traits: [] },
      'bob has no definitions (an account_id parameter is ignored)',
    )
    t.same((await bob.get('/api/top-events')).body.data, [])
    t.same((await bob.get('/api/persons')).body.data, { persons: [], next: null }, 'bob has no persons')
    t.equal((await bob.get('/api/users/alice_user')).status, 404)
    t.equal(
      (await bob.get(`/api/events?account_id=${a.accountId}`)).body.data.length,
      0,
      'an account_id parameter is ignored',
    )
    t.same(bobLive.items, [], "bob's live stream stayed empty (even asking for alice's account id)")

    const usage = async (c: typeof alice) => (await c.get('/api/usage')).body.data
    await waitUntil(
      async () => (await usage(alice)).events_this_month.live === 1,
      15_000,
      "alice's usage to count the event",
    )
    const u = await usage(alice)
    t.match(u, {
      plan: { name: 'hobby', requests_per_minute: 100, events_per_month: 1000 },
      emails_this_month: { sent: 0, limit: 100 },
    })
    t.ok(u.events_per_hour.some((h: any) => h.live === 1))
    t.equal((await usage(bob)).events_this_month.live, 0)
    // The page's frequent refresh (U35): the minute and the hours, without the month's count.
    const activity = (await alice.get('/api/usage/activity?days=2')).body.data
    t.same(Object.keys(activity).sort(), ['events_per_hour', 'requests_this_minute'])
    t.equal(activity.events_per_hour.length, 48, 'two days of hours')
    t.ok(
      activity.events_per_hour.some((h: any) => h.live === 1),
      "alice's event in its hour",
    )
    t.match(activity.requests_this_minute, { limit: 100 })
    t.notOk(
      (await bob.get('/api/usage/activity')).body.data.events_per_hour.some((h: any) => h.live > 0),
      "bob's hours are empty",
    )

    // An earlier month's usage (U34): two events received in the previous month, written as the projector
    // writes them (its usage view counts them by month of receipt), one of them twice.
    const now = new Date()
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15))
    const lastKey = lastMonth.toISOString().slice(0, 7)
    const old = [1, 2].map((i) =>
      eventRow({ event_id: `old-${i}`, account_id: a.accountId, event: 'Old', ms: lastMonth.getTime() + i }),
    )
    for (const values of [old, old.slice(0, 1)])
      await s.ch.insert({ table: `${s.database}.events`, values, format: 'JSONEachRow' })
    const earlier = (await alice.get(`/api/usage?month=${lastKey}`)).body.data
    t.match(
      earlier,
      {
        month: lastKey,
        resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
        events_this_month: { live: 2, test: 0, limit: 1000 },
      },
      "the previous month's events, each counted once",
    )
    t.equal((await usage(alice)).events_this_month.live, 1, 'this month still counts its own event alone')
    t.equal((await bob.get(`/api/usage?month=${lastKey}`)).body.data.events_this_month.live, 0, "not bob's")
    const nextKey = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7)
    for (const bad of ['2026-13', '26-01', 'last', nextKey]) {
      const r = await alice.get(`/api/usage?month=${bad}`)
      t.equal(r.status, 400, `month=${bad} is refused`)
      t.match(r.body.error, { code: 'VALIDATION_ERROR', details: { field: 'month' } })
    }

    const anon = s.client()
    for (const path of [
      '/api/keys',
      '/api/events',
      '/api/usage',
      '/api/usage/activity',
      `/api/users/alice_user`,
      '/api/live',
      '/api/live/history',
      '/api/definitions',
      '/api/persons',
    ])
      t.equal((await anon.get(path)).status, 401, `${path} needs a session`)
  })

  t.test('the front end is served with a strict CSP', async (t) => {
    const r = await fetch(`${s.dashboardUrl}/`)
    t.equal(r.status, 200)
    t.match(r.headers.get('content-security-policy'), /script-src 'self'/)
    t.match(await r.text(), /<script type="module" src="\/app\.js"/)
    t.equal((await fetch(`${s.dashboardUrl}/app.js`)).status, 200)
    const page = await fetch(`${s.dashboardUrl}/js/pages/live.js`)
    t.equal(page.status, 200, 'the modules in public/ subfolders are served (U10)')
    t.match(page.headers.get('content-type'), /^text\/javascript/)
    t.equal((await fetch(`${s.dashboardUrl}/../package.json`)).status, 404)
  })
})
