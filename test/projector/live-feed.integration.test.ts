// U1: GET /live streams an account's new records as server-sent events to the dashboard's
// server (LIVE_TOKEN and an account_id); other accounts' records never reach it. docs/security.md: an API key,
// live or test, never reads the feed.
import t from 'tap'
import { startServices, waitUntil, LIVE_TOKEN } from '../support/harness.js'

interface Feed {
  text: () => string
  close: () => void
}

async function openFeed(url: string, bearer: string): Promise<Feed> {
  let res: Response | undefined
  await waitUntil(
    async () => {
      const ac = new AbortController()
      const r = await fetch(url, { headers: { authorization: `Bearer ${bearer}` }, signal: ac.signal })
      if (r.status === 200) {
        res = r
        return true
      }
      await r.text()
      return false
    },
    15_000,
    'the live feed to answer',
  )
  let buf = ''
  const reader = res!.body!.getReader()
  const decoder = new TextDecoder()
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        buf += decoder.decode(value, { stream: true })
      }
    } catch {
      /* closed */
    }
  })()
  await waitUntil(() => buf.includes(': connected'), 10_000, 'the connected comment')
  return { text: () => buf, close: () => void reader.cancel().catch(() => undefined) }
}

t.test('the live feed shows an account its own new events only', async (t) => {
  const s = await startServices(t)
  const a = await s.createKey({ type: 'live' })
  const b = await s.createKey({ type: 'live' })

  const feedA = await openFeed(`${s.projectorUrl}/live?account_id=${a.accountId}`, LIVE_TOKEN)
  const feedB = await openFeed(`${s.projectorUrl}/live?account_id=${b.accountId}`, LIVE_TOKEN)
  const feedDash = await openFeed(`${s.projectorUrl}/live?account_id=${a.accountId}&event=checkout`, LIVE_TOKEN)
  t.teardown(() => [feedA, feedB, feedDash].forEach((f) => f.close()))

  const resA = await s.post(
    '/v1/event',
    { event: 'checkout', user: { id: 'alice' }, properties: { total: 5 } },
    { key: a.key },
  )
  t.equal(resA.status, 200)
  const idA = resA.body.data.results[0].event_id
  await waitUntil(() => feedA.text().includes(idA), 20_000, "account A's event on A's feed")
  const block = feedA
    .text()
    .split('\n\n')
    .find((b) => b.includes(`id: ${idA}`))!
  t.match(block, /^event: event$/m)
  const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!)
  t.match(data, {
    type: 'event',
    event_id: idA,
    account_id: a.accountId,
    event: 'checkout',
    user_id: 'alice',
    environment: 'live',
    properties: { total: 5 },
  })
  await waitUntil(() => feedDash.text().includes(idA), 20_000, 'the dashboard feed (LIVE_TOKEN) to see it too')

  // B posts after A's event was published: once B sees its own, the hub has long passed A's.
  const resB = await s.post('/v1/event', { event: 'other', user: { id: 'bob' } }, { key: b.key })
  const idB = resB.body.data.results[0].event_id
  await waitUntil(() => feedB.text().includes(idB), 20_000, "account B's event on B's feed")
  t.notOk(feedB.text().includes(idA), "B's feed never shows A's event")
  t.notOk(feedA.text().includes(idB), "A's feed never shows B's event")
  t.notOk(feedDash.text().includes(idB), 'the filtered dashboard feed shows only its account')

  // Wrong token, no token, and the account's own keys (live and test) are all refused.
  const test = await s.createKey({ account: a.accountId, type: 'test' })
  for (const [what, bearer] of [
    ['a live key', a.key],
    ['a test key', test.key],
    ['a wrong token', 'svc_live_wrongwrongwrongwrongwrongwrongwrong'],
    ['no token', ''],
  ] as const) {
    const r = await fetch(`${s.projectorUrl}/live?account_id=${a.accountId}`, {
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    })
    t.equal(r.status, 401, `${what} cannot read the live feed`)
    if (r.status === 200)
      await r.body?.cancel() // an open stream: do not wait for its end
    else t.equal((await r.json()).error.code, 'UNAUTHORIZED')
  }
  const noAccount = await fetch(`${s.projectorUrl}/live`, { headers: { authorization: `Bearer ${LIVE_TOKEN}` } })
  t.equal(noAccount.status, 400, 'the service token names the account')
  await noAccount.body?.cancel()

  const metrics = await (await fetch(`${s.projectorUrl}/metrics`)).text()
  t.match(metrics, /^projector_live_subscribers 3$/m)
})
