// The browser build in a real browser (Debian's headless Chromium driven by playwright-core, never
// a downloaded browser): a page served on loopback loads sdk/dist as an ES module, tracks events
// against the real ingest on another origin (CORS, H15) and flushes; then it tracks one more and
// is navigated away, and that last event goes out with keepalive fetch on page hide. All of them
// must arrive in ClickHouse. No timed assertions: waits poll generously.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServices } from '../../test/support/harness.js'
import { CHROMIUM, launchChromium } from '../../test/support/browser.js'

const SDK = fileURLToPath(new URL('..', import.meta.url))
const DIST = join(SDK, 'dist')
const WAIT = 30_000

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>SDK test page</title></head>
<body><p>SDK test page</p>
<script type="module">
  import { TrackingClient } from '/sdk/index.js'
  window.TrackingClient = TrackingClient
  window.sdkLoaded = true
</script></body></html>`

/** Serves the test page and sdk/dist (as /sdk/...) on loopback, another origin than the ingest. */
async function servePage(): Promise<{ url: string; server: Server }> {
  const types: Record<string, string> = { '.js': 'text/javascript', '.map': 'application/json' }
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path === '/' || path === '/index.html' || path === '/next.html') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(path === '/next.html' ? '<!doctype html><p>next page</p>' : PAGE)
      return
    }
    const file = normalize(join(DIST, path.replace(/^\/sdk\//, '')))
    if (!path.startsWith('/sdk/') || !file.startsWith(DIST) || !existsSync(file)) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('the browser build tracks events into ClickHouse, the last one sent on page hide', async (t) => {
    // The page must load what the sources build to now (npm run build in sdk/).
    execFileSync(
      process.execPath,
      [join(SDK, '../node_modules/typescript/bin/tsc'), '-p', join(SDK, 'tsconfig.json')],
      { stdio: 'inherit' },
    )
    const s = await startServices(t)
    const { key } = await s.createKey({ type: 'live' })
    const site = await servePage()
    t.teardown(() => new Promise((r) => site.server.close(r)))
    const browser = await launchChromium(t)
    const page = await browser.newPage()
    page.setDefaultTimeout(WAIT)
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))

    await page.goto(`${site.url}/index.html`)
    await page.waitForFunction(() => (window as any).sdkLoaded === true)
    const first = await page.evaluate(
      async ({ key, baseUrl }) => {
        const w = window as any
        w.errors = []
        // A long interval: only flush() and the page hide may send.
        w.client = new w.TrackingClient({
          apiKey: key,
          baseUrl,
          flushInterval: 600_000,
          onError: (e: any) => w.errors.push(`${e.code}: ${e.message}`),
        })
        const ids = [
          w.client.identify('browser_user_1', { plan: 'pro', email: 'ada@example.com' }),
          w.client.track('page_viewed', { path: '/pricing' }),
          w.client.track('button_clicked', { id: 'buy' }),
        ]
        await w.client.flush()
        return { ids, stats: w.client.stats(), errors: w.errors }
      },
      { key, baseUrl: s.ingestUrl },
    )
    t.same(first.errors, [], 'no errors in the page')
    t.match(first.stats, { delivered: 3, failed: 0, queued: 0 }, 'flush() delivered the three items')

    // One more event, not flushed: it must leave with the page.
    const last = await page.evaluate(() => {
      const w = window as any
      const id = w.client.track('checkout_abandoned', { step: 2 })
      return { id, queued: w.client.stats().queued }
    })
    t.equal(last.queued, 1, 'queued, not yet sent')
    await page.goto(`${site.url}/next.html`)
    t.same(pageErrors, [])

    const rows = await s.waitForRows<{ message_id: string; event: string; user_id: string; context: string }>(
      `SELECT message_id, event, user_id, context FROM ${s.database}.events FINAL ORDER BY timestamp_ms`,
      3,
      WAIT,
    )
    t.same(
      rows.map((r) => r.event).sort(),
      ['button_clicked', 'checkout_abandoned', 'page_viewed'],
      'the events and the one sent on page hide',
    )
    t.same(
      new Set(rows.map((r) => r.message_id)),
      new Set([first.ids[1], first.ids[2], last.id]),
      'with the message_ids the SDK gave them',
    )
    t.ok(
      rows.every((r) => r.user_id === 'browser_user_1'),
      'identify() set the user of later events',
    )
    const ctx = JSON.parse(rows[0].context)
    t.match(
      ctx,
      { platform: 'web', library: { name: '@event-tracking/sdk' }, page: { path: '/index.html' } },
      'browser context',
    )
    const ident = await s.waitForRows<{ message_id: string }>(
      `SELECT message_id FROM ${s.database}.identifies FINAL`,
      1,
      WAIT,
    )
    t.same(
      ident.map((r) => r.message_id),
      [first.ids[0]],
      'and the identify',
    )
  })

  t.test('a request still under way when the page goes is sent again with keepalive', async (t) => {
    const s = await startServices(t)
    const { key } = await s.createKey({ type: 'test' })
    const site = await servePage()
    t.teardown(() => new Promise((r) => site.server.close(r)))
    const browser = await launchChromium(t)
    const page = await browser.newPage()
    page.setDefaultTimeout(WAIT)
    await page.goto(`${site.url}/index.html`)
    await page.waitForFunction(() => (window as any).sdkLoaded === true)
    const state = await page.evaluate(
      ({ key, baseUrl }) => {
        const w = window as any
        // Ordinary requests never get an answer (a stalled network); keepalive ones go through.
        const fetch = (url: string, init: RequestInit) =>
          init.keepalive ? window.fetch(url, init) : new Promise(() => undefined)
        w.client = new w.TrackingClient({ apiKey: key, baseUrl, fetch, user: 'stalled_user', flushInterval: 600_000 })
        const ids = [w.client.track('a', {}), w.client.track('b', {})]
        void w.client.flush()
        return { ids, stats: w.client.stats() }
      },
      { key, baseUrl: s.ingestUrl },
    )
    t.match(state.stats, { inFlight: 2, queued: 0 }, 'both items in a request that will not end')
    await page.goto(`${site.url}/next.html`)
    const rows = await s.waitForRows<{ message_id: string }>(
      `SELECT message_id FROM ${s.database}.events FINAL`,
      2,
      WAIT,
    )
    t.same(rows.map((r) => r.message_id).sort(), [...state.ids].sort(), 'stored by the keepalive copy')
  })
}
