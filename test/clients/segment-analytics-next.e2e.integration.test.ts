// Segment's browser library, @segment/analytics-next (npm, unchanged), in Debian's headless Chromium,
// pointed at our ingest (docs/api.md "Segment-compatible API"). A local page loads the library's npm
// build (bundled for the browser by esbuild, which tsx already brings); its CDN settings fetch goes to a
// stub on this machine that names our ingest as the Segment.io destination's apiHost, and every other
// request is refused, so nothing leaves the machine. The page runs the scenario of every real client
// (test/support/segment-scenario.ts), one visitor per browser context: each views pages anonymously,
// then identifies, then tracks, joins a group and aliases an older id. The ingest is killed
// (SIGKILL) and restarted mid-stream: the library sends each call in its own request and retries what
// failed from its queue with the same messageId, which ingest stores once (H16), so the counts
// are exact: nothing lost, nothing twice.
import t from 'tap'
import { build } from 'esbuild'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { startServices, waitUntil } from '../support/harness.js'
import { CHROMIUM, freshPage, launchChromium } from '../support/browser.js'
import { checkScenario, personIds } from '../support/segment-scenario.js'

// A browser context per visitor costs about a second of this machine's CPU, more under load, and the
// waves after the kill wait for the library's backoff: 24 visitors (144 calls) keep the file well inside
// tap's timeout on a loaded machine, with the kill (after 60 acknowledged calls) in the second wave.
const PEOPLE = 24
import { killableIngest } from '../../sdk/testing/ingest-process.js'

/** The library's npm build as one browser script exposing `SegmentAnalytics.AnalyticsBrowser`. */
async function analyticsBundle(): Promise<string> {
  const r = await build({
    stdin: { contents: "export { AnalyticsBrowser } from '@segment/analytics-next'", resolveDir: import.meta.dirname },
    bundle: true,
    format: 'iife',
    globalName: 'SegmentAnalytics',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  })
  return r.outputFiles[0]!.text
}

/** The page and the CDN settings stub, on a loopback port of their own. */
async function serveSite(t: { teardown(fn: () => unknown): void }, bundle: string, apiHost: string) {
  const settingsFetched: string[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x')
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<!doctype html><title>shop</title><script src="/analytics.js"></script><h1>shop</h1>')
    } else if (url.pathname === '/analytics.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' })
      res.end(bundle)
    } else if (/^\/v1\/projects\/[^/]+\/settings$/.test(url.pathname)) {
      settingsFetched.push(url.pathname)
      const writeKey = decodeURIComponent(url.pathname.split('/')[3]!)
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
      // What Segment's CDN answers for a source whose only destination is Segment.io: its apiKey is the
      // source's write key (the library sends it in each body), apiHost our ingest; telemetry off.
      res.end(
        JSON.stringify({
          integrations: { 'Segment.io': { apiKey: writeKey, apiHost, protocol: 'http' } },
          plan: { track: { __default: { enabled: true } }, identify: { __default: { enabled: true } } },
          metrics: { sampleRate: 0 },
          remotePlugins: [],
          enabledMiddleware: {},
          middlewareSettings: {},
          legacyVideoPluginsEnabled: false,
        }),
      )
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise((r) => server.close(r)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, settingsFetched }
}

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test(
    '@segment/analytics-next in Chromium: anonymous views, identify, track, through an ingest killed mid-stream',
    async (t) => {
      const s = await startServices(t, { ingest: false })
      const { key, accountId } = await s.createKey({ plan: 'unlimited', type: 'live' })
      const ingest = await killableIngest(t, { ...s.env, LOG_LEVEL: 'warn', IP_REQUESTS_PER_MINUTE: '100000' }, key)
      const apiHost = `${new URL(ingest.url).host}/v1`
      const site = await serveSite(t, await analyticsBundle(), apiHost)

      const browser = await launchChromium(t)
      const sent = new Set<string>()
      const acked = new Set<string>()
      const leftTheMachine: string[] = []
      const pageErrors: string[] = []
      let requests = 0
      let ok = 0
      const messageIdOf = (body: string | null) => JSON.parse(body!).messageId as string

      // One visitor per browser context, as on the web: its own storage, so its own anonymous id and
      // user. The library fills in a call's user id when it sends it (its normalize step), so a view it
      // retries after the visitor signed up would go out under their user id: the visitor browses, and
      // signs up once the views are delivered, as people do.
      const visit = async (p: ReturnType<typeof personIds>): Promise<string[]> => {
        const page = await freshPage(browser, t, 240_000)
        await page.route('**/*', (route) => {
          const u = new URL(route.request().url())
          if (u.hostname === '127.0.0.1') return route.continue()
          leftTheMachine.push(u.href)
          return route.abort()
        })
        page.on('request', (r) => {
          if (!r.url().startsWith(ingest.url)) return
          requests++
          sent.add(messageIdOf(r.postData()))
        })
        page.on('response', (r) => {
          if (!r.url().startsWith(ingest.url) || r.status() !== 200) return
          ok++
          acked.add(messageIdOf(r.request().postData()))
        })
        page.on('pageerror', (e) => pageErrors.push(e.message))
        await page.exposeFunction('acknowledged', (ids: string[]) => ids.every((id) => acked.has(id)))
        await page.goto(site.url)
        const ids: string[] = await page.evaluate(
          async ({ key, cdnURL, p }) => {
            const w = window as any
            const [analytics] = await w.SegmentAnalytics.AnalyticsBrowser.load({ writeKey: key, cdnURL })
            const delivered = async (calls: Array<Promise<any>>) => {
              const ids = (await Promise.all(calls)).map((ctx) => ctx.event.messageId as string)
              while (!(await w.acknowledged(ids))) await new Promise((r) => setTimeout(r, 50))
              return ids
            }
            analytics.setAnonymousId(p.anon)
            const anonymous = await delivered([
              analytics.page('Marketing', 'Home', { url: `https://example.com/?p=${p.anon}`, path: '/' }),
              analytics.screen('Settings', { from: 'menu' }),
            ])
            const known = await delivered([
              analytics.identify(p.user, { plan: 'pro' }),
              analytics.track('signup_completed', { plan: 'pro' }),
              analytics.group(p.group, { name: `Group ${p.group}` }),
              analytics.alias(p.user, p.old),
            ])
            return [...anonymous, ...known]
          },
          { key, cdnURL: site.url, p },
        )
        await page.context().close()
        return ids
      }

      const run = randomBytes(4).toString('hex')
      let killed = false
      const killer = waitUntil(() => ok >= 60, 120_000, '60 calls acknowledged').then(async () => {
        await ingest.killAndRestart()
        killed = true
      })
      const delivered: string[] = []
      const WAVE = 8
      for (let i = 0; i < PEOPLE; i += WAVE) {
        const wave = Array.from({ length: Math.min(WAVE, PEOPLE - i) }, (_, k) => visit(personIds(run, i + k)))
        for (const ids of await Promise.all(wave)) delivered.push(...ids)
      }
      await killer
      t.ok(killed, 'the ingest was killed and restarted mid-stream')
      t.equal(new Set(delivered).size, PEOPLE * 6, 'the library delivered every call, each acknowledged')
      t.same(pageErrors, [], 'no error in the pages')
      t.same(leftTheMachine, [], 'no request left the machine')
      t.equal(site.settingsFetched.length, PEOPLE, 'each visit took its settings from the local CDN stub')
      t.ok(requests > ok, `calls cut off by the kill were retried (${requests} requests, ${ok} acknowledged)`)
      await checkScenario(t, s, accountId, run, sent, PEOPLE)
    },
  )
}
