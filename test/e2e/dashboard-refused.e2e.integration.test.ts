// The Refused requests page (U16, H57) against real data: a new account sees the empty state that says
// what the page is for; requests refused with its key then show as counts by code and as samples with
// code, message and the body truncated (the key removed). In Debian's headless Chromium; axe-core finds
// no serious or critical violation at desktop and at 390 px, where the page fits the screen.
import t from 'tap'
import { existsSync } from 'node:fs'
import { seriousViolations } from '../support/axe.js'
import { CHROMIUM, freshPage, launchChromium, signUpInPage } from '../support/browser.js'
import { startDashboard } from '../support/dashboard-harness.js'

const WAIT = 30_000

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('refused requests on their page', async (t) => {
    // A short drain so the test waits for the projector, not for ingest's 5 s timer.
    const s = await startDashboard(t, { env: { REFUSALS_FLUSH_MS: '200' } })
    const browser = await launchChromium(t)
    const page = await freshPage(browser, t, WAIT, { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })
    await signUpInPage(page, s.dashboardUrl, `refused-${s.suffix}@example.com`, 'Refused')
    await page.fill('form input[name=name]', 'web')
    await page.click('#create-key')
    const key = (await page.textContent('#new-key-secret'))!.trim()

    await page.click('nav a[data-page=refused]')
    await page.waitForSelector('#refused-empty')
    t.match(
      await page.textContent('#refused-empty'),
      /why events are not arriving/,
      'the empty state says what the page shows',
    )
    t.equal(await page.title(), 'Refused requests · Event tracking')
    t.same(await seriousViolations(page), [], 'empty: no serious or critical axe violation')

    const long = { event: 42, writeKey: key, user: { id: 'u1' }, properties: { note: 'x'.repeat(400) } }
    for (let i = 0; i < 3; i++) t.equal((await s.post('/v1/event', long, { key })).status, 400, 'refused')
    await s.waitForRows(`SELECT 1 FROM ${s.database}.refused_samples FINAL`, 3, WAIT)

    await page.goto('about:blank')
    await page.goto(`${s.dashboardUrl}/#/refused?period=24h&interval=minute`)
    await page.waitForSelector('#refused-samples')
    t.same(
      await page.$$eval('#refused-totals tbody tr', (rows) => rows.map((r) => r.textContent!.trim())),
      ['VALIDATION_ERROR3'],
      'the count by code',
    )
    const samples = await page.$$eval('#refused-samples tbody tr', (rows) => rows.map((r) => r.textContent ?? ''))
    t.equal(samples.length, 3, 'a row per sample')
    t.match(samples[0], /VALIDATION_ERROR/)
    t.match(samples[0], /\/v1\/event/)
    t.match(samples[0], /"event":42/, 'the body is shown')
    t.match(samples[0], /…/, 'a long body is truncated')
    t.notOk((await page.content()).includes(key), 'the key is nowhere on the page')
    t.same(await seriousViolations(page), [], 'refused: no serious or critical axe violation')

    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('about:blank')
    await page.goto(`${s.dashboardUrl}/#/refused`)
    await page.waitForSelector('#refused-samples')
    t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'refused fits a 390 px phone')
    t.same(await seriousViolations(page), [], 'refused at 390 px: no serious or critical axe violation')
  })
}
