// `npm run screenshots`: the README's screenshots of the dashboard, taken again. Starts ingest, the
// projector and the dashboard on the running stack (random topics and a fresh ClickHouse database, as
// the tests do; STACK_DIR as for the tests), signs up in headless Chromium, sends a demo account's
// events and identifies through ingest's /v1/events as an instrumented app would, and writes a PNG of
// every page of the nav (so a page added to the nav is shot with no change here), a user's page, the
// event drawer, and Live at phone width into docs/screenshots/. Each page is shot once the API calls
// it started have answered (the live stream's open connection aside).
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { launchChromium, signUpInPage } from './browser.js'
import { startDashboard } from './dashboard-harness.js'
import { waitUntil } from './harness.js'
import { demoBatches, DEMO_USER } from './demo-data.js'

const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots')
const WAIT = 60_000
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
/** Files named before this tool existed, kept so the links to them stay valid. */
const FILE_OF: Record<string, string> = { live: 'live-stream' }
/** Pages that show nothing until asked: a question of the demo data, in the page's own address form. */
const VIEW_OF: Record<string, string> = {
  funnels: '?step1=page_viewed&step2=project_created&step3=checkout_completed&window=7d&period=7d',
  trends: '?breakdown=path&event=page_viewed',
}

/** Resolves once no API call but the live stream has been in flight for `quietMs`. */
function apiSettled(page: Page, quietMs = 700): () => Promise<void> {
  const inFlight = new Set<unknown>()
  const isApi = (u: string) => {
    const path = new URL(u).pathname
    return path.startsWith('/api/') && path !== '/api/live'
  }
  page.on('request', (r) => isApi(r.url()) && inFlight.add(r))
  page.on('requestfinished', (r) => inFlight.delete(r))
  page.on('requestfailed', (r) => inFlight.delete(r))
  return async () => {
    let quietSince = Date.now()
    await waitUntil(
      () => {
        if (inFlight.size > 0) quietSince = Date.now()
        return Date.now() - quietSince >= quietMs
      },
      WAIT,
      'the page to finish its API calls',
    )
  }
}

/** Tallest shot: a long list is cut here rather than drawn too small to read in the README. */
const MAX_HEIGHT = 1400

async function shoot(page: Page, name: string, settled: () => Promise<void>, fullPage = true): Promise<void> {
  await settled()
  const path = join(SHOTS, `${name}.png`)
  const height = Math.min(MAX_HEIGHT, await page.evaluate(() => document.documentElement.scrollHeight))
  const { width } = page.viewportSize()!
  await page.screenshot(fullPage ? { path, fullPage, clip: { x: 0, y: 0, width, height } } : { path })
  process.stderr.write(`screenshots: ${path}\n`)
}

async function main() {
  const teardowns: Array<() => unknown> = []
  const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) }
  try {
    const s = await startDashboard(t)
    const browser = await launchChromium(t)
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'UTC', locale: 'en-GB' })
    const page = await context.newPage()
    page.setDefaultTimeout(WAIT)
    const settled = apiSettled(page)
    mkdirSync(SHOTS, { recursive: true })

    await page.goto(`${s.dashboardUrl}/#/signin`)
    await shoot(page, 'signin', settled, false)
    const email = `demo-${s.suffix}@example.com`
    await signUpInPage(page, s.dashboardUrl, email, 'Acme Rockets')
    const accountId = s.admin.findAccountByEmail(email)!.account_id
    const { key } = await s.createKey({ account: accountId, type: 'live', name: 'web app' })
    await s.createKey({ account: accountId, type: 'test', name: 'staging' })
    const batches = demoBatches(Date.now())
    await waitUntil(async () => (await s.post('/v1/events', batches[0], { key })).status === 200, WAIT, 'the key')
    for (const b of batches.slice(1)) {
      const r = await s.post('/v1/events', b, { key })
      if (r.status !== 200) throw new Error(`demo batch refused: ${r.status} ${JSON.stringify(r.body)}`)
    }
    const events = batches.flatMap((b) => b.events).filter((e) => e.type === 'event').length
    await s.waitForRows(`SELECT event_id FROM ${s.database}.events`, events, WAIT)

    const nav = await page.$$eval('nav a[data-page]', (as) => as.map((a) => a.getAttribute('data-page')!))
    for (const name of nav) {
      await page.goto(`${s.dashboardUrl}/#/${name}${VIEW_OF[name] ?? ''}`)
      if (name === 'live') await page.waitForSelector('#live-rows tr[data-event-id]')
      await shoot(page, FILE_OF[name] ?? name, settled, name !== 'live')
    }
    await page.goto(`${s.dashboardUrl}/#/users/${encodeURIComponent(DEMO_USER)}`)
    await shoot(page, 'user', settled)
    await page.goto(`${s.dashboardUrl}/#/explorer`)
    await settled()
    await page.locator('#events-table tr[data-event-id] button').first().click()
    await page.waitForSelector('#detail-raw-toggle')
    await shoot(page, 'event-detail', settled, false)

    const phone = await browser.newContext({ viewport: PHONE, timezoneId: 'UTC', locale: 'en-GB', isMobile: true })
    const p = await phone.newPage()
    p.setDefaultTimeout(WAIT)
    await phone.addCookies(await context.cookies())
    const phoneSettled = apiSettled(p)
    await p.goto(`${s.dashboardUrl}/#/live`)
    await p.waitForSelector('#live-rows tr[data-event-id]')
    await shoot(p, 'live-phone', phoneSettled, false)
  } finally {
    for (const fn of teardowns) await fn()
  }
}

main().catch((err) => {
  process.stderr.write(`screenshots failed: ${err?.stack ?? err}\n`)
  process.exitCode = 1
})
