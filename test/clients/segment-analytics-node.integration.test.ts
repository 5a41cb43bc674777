// Segment's own Node library, @segment/analytics-node, unchanged, pointed at our ingest (docs/api.md
// Segment-compatible API): a few hundred calls of every type it has (test/support/segment-scenario.ts),
// with the ingest killed (SIGKILL, no drain) and restarted mid-stream, as sdk-restart does for our
// SDK. The library retries what the kill cut off with the same messageIds: nothing lost, nothing twice.
import t from 'tap'
import { Analytics } from '@segment/analytics-node'
import { randomBytes } from 'node:crypto'
import { startServices, waitUntil } from '../support/harness.js'
import { checkScenario, PEOPLE, personIds } from '../support/segment-scenario.js'
import { killableIngest } from '../../sdk/testing/ingest-process.js'

t.test(
  '@segment/analytics-node: every call type, through an ingest killed mid-stream, stored exactly once',
  async (t) => {
    const s = await startServices(t, { ingest: false })
    const { key, accountId } = await s.createKey({ plan: 'unlimited', type: 'live' })
    const ingest = await killableIngest(t, { ...s.env, LOG_LEVEL: 'warn' }, key)

    const analytics = new Analytics({
      writeKey: key,
      host: ingest.url,
      flushAt: 15,
      flushInterval: 200,
      maxRetries: 1000,
    })
    const sent = new Set<string>()
    let ok = 0
    let requests = 0
    analytics.on('http_request', (r) => {
      requests++
      for (const m of JSON.parse(r.body).batch) sent.add(m.messageId)
    })
    analytics.on('http_response', (r) => {
      if (r.status === 200) ok++
    })
    const errors: unknown[] = []
    analytics.on('error', (e) => errors.push(e))

    const run = randomBytes(4).toString('hex')
    let killed = false
    for (let i = 0; i < PEOPLE; i++) {
      const p = personIds(run, i)
      analytics.page({
        anonymousId: p.anon,
        name: 'Home',
        category: 'Marketing',
        properties: { url: `https://example.com/?i=${i}`, path: '/' },
      })
      analytics.screen({ anonymousId: p.anon, name: 'Settings', properties: { from: 'menu' } })
      analytics.identify({ userId: p.user, anonymousId: p.anon, traits: { plan: 'pro', n: i } })
      analytics.track({ userId: p.user, anonymousId: p.anon, event: 'signup_completed', properties: { plan: 'pro' } })
      analytics.group({ userId: p.user, groupId: p.group, traits: { name: `Group ${p.group}` } })
      analytics.alias({ userId: p.user, previousId: p.old })
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 20))
      if (!killed && ok >= 10) {
        await ingest.killAndRestart()
        killed = true
      }
    }
    if (!killed) {
      await waitUntil(() => ok >= 10, 120_000, '10 batches acknowledged')
      await ingest.killAndRestart()
    }
    await analytics.closeAndFlush({ timeout: 180_000 })
    t.same(errors, [], 'the library reported no failure')
    t.ok(requests > ok, `requests cut off by the kill were retried (${requests} requests, ${ok} acknowledged)`)
    await checkScenario(t, s, accountId, run, sent)
  },
)
