// The dashboard's live stream against the real stack (U3, U4): a browser that stops reading is cut
// off while the projector goes on projecting, a session holds a bounded number of streams, and a
// stream ends with its session (sign out everywhere, a password change) without delivering
// anything sent after that.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { startDashboard, type DashboardClient } from '../../../../test/support/dashboard-harness.js'
import { waitUntil } from '../../../../test/support/harness.js'

const BIG = {
  requestsPerMinute: 1_000_000,
  eventsPerSecond: 1_000_000,
  eventsPerMonth: 1_000_000_000,
  emailsPerMonth: 0,
}

interface RawStream {
  socket: Socket
  text: () => string
  closed: () => boolean
}

/** GET /api/live on a raw socket, as a browser would, reading until the stream is open. */
function openRaw(baseUrl: string, c: DashboardClient): Promise<RawStream> {
  const u = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname)
    let buf = ''
    let closed = false
    socket.on('close', () => (closed = true))
    socket.on('error', () => (closed = true))
    socket.on('data', (d) => {
      buf += d.toString()
      if (/^HTTP\/1\.1 200/.test(buf) && buf.includes(': connected'))
        resolve({ socket, text: () => buf, closed: () => closed })
      else if (/^HTTP\/1\.1 [^2]/.test(buf)) reject(new Error(`live stream refused: ${buf.slice(0, 200)}`))
    })
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    socket.write(`GET /api/live HTTP/1.1\r\nHost: ${u.host}\r\nAccept: text/event-stream\r\nCookie: ${cookie}\r\n\r\n`)
  })
}

async function liveSubscribers(projectorUrl: string): Promise<number> {
  const m = /^projector_live_subscribers (\d+)$/m.exec(await (await fetch(`${projectorUrl}/metrics`)).text())
  return Number(m![1])
}

t.test('dashboard live stream', async (t) => {
  const s = await startDashboard(t, {
    env: { PLANS_JSON: JSON.stringify({ hobby: BIG }), LIVE_BUFFER_BYTES: '65536', LIVE_MAX_STREAMS_PER_SESSION: '2' },
  })

  t.test('a browser that stops reading is cut off; the projector goes on projecting', async (t) => {
    const c = s.client()
    const { accountId } = await c.signUp()
    const key = (await c.post('/api/keys', { name: 'server', type: 'live' })).body.data.secret
    await waitUntil(
      async () => (await s.post('/v1/event', { event: 'first', user: { id: 'u' } }, { key })).status === 200,
      10_000,
      'the key to reach ingest',
    )
    const stream = await openRaw(s.dashboardUrl, c)
    stream.socket.pause()
    t.teardown(() => stream.socket.destroy())
    await waitUntil(
      async () => (await liveSubscribers(s.projectorUrl)) === 1,
      10_000,
      'the stream to reach the projector',
    )

    // Batches of 100 events of about 30 KB each go to the account until the projector cuts the
    // stream nobody reads (bounded: a stream that is never cut fails the test).
    const pad = 'x'.repeat(30_000)
    let batches = 0
    while (batches < 40 && (await liveSubscribers(s.projectorUrl)) > 0) {
      const events = Array.from({ length: 100 }, (_, i) => ({
        type: 'event',
        event: 'big',
        user: { id: `u${i}` },
        properties: { pad },
      }))
      const r = await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, { key })
      t.equal(r.status, 200, `batch ${batches} stored`)
      batches++
      if (batches >= 3) await new Promise((r) => setTimeout(r, 200))
    }
    t.ok(batches < 40, `the paused stream was cut after ${batches} batches of about 3 MB`)
    t.equal((await fetch(`${s.projectorUrl}/health/live`)).status, 200, 'the projector is alive')

    // Still projecting: every big event lands, and a new one after the cut too.
    const after = await s.post('/v1/event', { event: 'after_cut', user: { id: 'u' } }, { key })
    t.equal(after.status, 200)
    await s.waitForRows(
      `SELECT 1 FROM ${s.database}.events WHERE account_id = '${accountId}' AND event = 'after_cut'`,
      1,
      30_000,
    )
    const [row] = await s.query<{ n: string }>(
      `SELECT count() AS n FROM ${s.database}.events WHERE account_id = '${accountId}' AND event = 'big'`,
    )
    t.equal(Number(row!.n), batches * 100, 'every event sent is stored')

    // The browser, reading again, gets what was buffered and then the end of its stream.
    stream.socket.resume()
    await waitUntil(() => stream.closed(), 30_000, 'the cut stream to close at the browser')
  })

  t.test('a session holds at most LIVE_MAX_STREAMS_PER_SESSION streams', async (t) => {
    const c = s.client()
    const { email, password } = await c.signUp()
    const open = [await openRaw(s.dashboardUrl, c), await openRaw(s.dashboardUrl, c)]
    t.teardown(() => open.forEach((o) => o.socket.destroy()))
    const third = await c.openLive()
    t.equal(third.status, 429)
    third.close()
    const refused = await fetch(`${s.dashboardUrl}/api/live`, {
      headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    t.equal(refused.status, 429)
    t.equal(refused.headers.get('retry-after'), '5')
    t.equal((await refused.json()).error.code, 'TOO_MANY_STREAMS')
    // Another session of the same account has its own streams.
    const other = s.client()
    t.equal((await other.post('/api/signin', { email, password })).status, 200)
    const mine = await other.openLive()
    t.equal(mine.status, 200)
    mine.close()
    // A closed stream frees its place.
    open.shift()!.socket.destroy()
    await waitUntil(
      async () => (await c.openLive().then((l) => (l.close(), l.status))) === 200,
      10_000,
      'the freed place',
    )
  })

  for (const how of ['sign out everywhere', 'password change'] as const) {
    t.test(`a stream ends with its session (${how}), and nothing sent after reaches it`, async (t) => {
      const phone = s.client()
      const { email, password } = await phone.signUp()
      const key = (await phone.post('/api/keys', { name: 'server', type: 'live' })).body.data.secret
      const laptop = s.client()
      t.equal((await laptop.post('/api/signin', { email, password })).status, 200)
      const lost = await openRaw(s.dashboardUrl, phone)
      t.teardown(() => lost.socket.destroy())

      const before = await s.post('/v1/event', { event: 'before_revocation', user: { id: 'u' } }, { key })
      await waitUntil(
        () => lost.text().includes(before.body.data.results[0].event_id),
        20_000,
        'the stream to work before',
      )

      if (how === 'sign out everywhere') t.equal((await laptop.post('/api/signout-everywhere')).status, 200)
      else
        t.equal(
          (await laptop.post('/api/password', { current_password: password, new_password: 'another good password' }))
            .status,
          200,
        )
      t.equal((await phone.get('/api/me')).status, 401, 'the old session is refused')

      const afterRes = await s.post('/v1/event', { event: 'after_revocation', user: { id: 'u' } }, { key })
      const afterId = afterRes.body.data.results[0].event_id
      // A session signed in after the revocation sees the event: it was published to the feed.
      const fresh = s.client()
      t.equal(
        (
          await fresh.post('/api/signin', {
            email,
            password: how === 'password change' ? 'another good password' : password,
          })
        ).status,
        200,
      )
      const witness = await fresh.openLive()
      t.teardown(() => witness.close())
      const again = await s.post('/v1/event', { event: 'after_revocation_2', user: { id: 'u' } }, { key })
      await waitUntil(
        () => witness.items.some((i) => i.event_id === again.body.data.results[0].event_id),
        20_000,
        'a signed-in stream to see events',
      )
      t.notOk(lost.text().includes(afterId), 'no event sent after the revocation reached the revoked stream')
      t.notOk(lost.text().includes('after_revocation'), 'nor any later one')
      await waitUntil(() => lost.closed(), 20_000, "the revoked session's stream to close")
    })
  }
})
