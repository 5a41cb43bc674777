// The Funnels and Retention pages on real data (U15, U18 of docs/design.md): a visitor views a page
// anonymously, identifies as ada, signs up and buys; bob only views. The funnel page_viewed -> signup
// -> purchase counts ada once across the switch (2 / 1 / 1), the choices stay in the URL, and the
// retention table's cohort holds the two persons. In Debian's headless Chromium; axe-core finds no
// serious or critical violation at desktop and at 390 px, where the cohort table scrolls in its own box.
import t from 'tap'
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { CHROMIUM, freshPage, launchChromium, signUpInPage } from '../support/browser.js'
import { startDashboard } from '../support/dashboard-harness.js'
import { seriousViolations } from '../support/axe.js'

const WAIT = 30_000

const cells = (page: Page, selector: string) =>
  page.$$eval(selector, (rows) => rows.map((r) => [...r.children].map((c) => c.textContent!.trim())))

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('Funnels and Retention show persons across the anonymous -> known switch', async (t) => {
    const s = await startDashboard(t)
    const browser = await launchChromium(t)
    const page = await freshPage(browser, t, WAIT, { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })
    await signUpInPage(page, s.dashboardUrl, `funnels-${s.suffix}@example.com`, 'Funnels')
    await page.fill('form input[name=name]', 'web')
    await page.click('#create-key')
    const key = (await page.textContent('#new-key-secret'))!.trim()
    const basic = { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }
    const sent: Array<[string, Record<string, unknown>]> = [
      ['/v1/page', { anonymousId: 'anon-1', name: 'Pricing', properties: { path: '/pricing' } }],
      ['/v1/identify', { userId: 'ada', anonymousId: 'anon-1', traits: { email: 'ada@example.com' } }],
      ['/v1/track', { userId: 'ada', event: 'signup' }],
      ['/v1/track', { userId: 'ada', event: 'purchase' }],
      ['/v1/page', { userId: 'bob', name: 'Home', properties: { path: '/' } }],
    ]
    for (const [path, body] of sent) t.equal((await s.post(path, body, basic)).status, 200, `${path} is stored`)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.events`, 4, WAIT)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.identity_links WHERE user_id = 'ada'`, 1, WAIT)
    // Retention reads person_weeks, which a materialized view fills from the events inserts: ClickHouse commits
    // its parts after the events parts, so wait for the weeks (event '': any event) of the three ids.
    await s.waitForRows(`SELECT DISTINCT user_id FROM ${s.database}.person_weeks WHERE event = ''`, 3, WAIT)

    await page.goto(`${s.dashboardUrl}/#/funnels`)
    await page.fill('#funnel-step1', 'page_viewed')
    await page.fill('#funnel-step2', 'signup')
    await page.fill('#funnel-step3', 'purchase')
    await page.selectOption('#funnel-window', '1d')
    await page.press('#funnel-step3', 'Enter')
    await page.waitForSelector('#funnel-table tbody tr')
    t.same(
      (await cells(page, '#funnel-table tbody tr')).map((r) => [r[1], r[2], r[3], r[4]]),
      [
        ['page_viewed', '2', '100.0%', '—'],
        ['signup', '1', '50.0%', '1 (50.0%)'],
        ['purchase', '1', '50.0%', '0 (0.0%)'],
      ],
      'ada is one person from the anonymous view to the purchase',
    )
    t.match(page.url(), /step1=page_viewed&step2=signup&step3=purchase&window=1d/, 'the choices are in the URL')
    t.same(await seriousViolations(page), [], 'Funnels: no serious or critical axe violation')

    await page.goto(`${s.dashboardUrl}/#/retention?weeks=4`)
    await page.waitForSelector('#cohort-table tbody tr')
    const rows = await cells(page, '#cohort-table tbody tr')
    t.equal(rows.length, 1, 'one cohort: this week')
    t.same(rows[0]!.slice(1), ['2', '', '', '', ''], 'two persons, their weeks after not begun yet')
    t.equal(await page.inputValue('#retention-weeks'), '4', 'the choice read from the URL')
    t.same(await seriousViolations(page), [], 'Retention: no serious or critical axe violation')

    await page.setViewportSize({ width: 390, height: 844 })
    for (const [hash, selector] of [
      ['funnels?step1=page_viewed&step2=signup&step3=purchase&window=1d', '#funnel-table tbody tr'],
      ['retention?weeks=12', '#cohort-table tbody tr'],
    ] as const) {
      await page.goto('about:blank')
      await page.goto(`${s.dashboardUrl}/#/${hash}`)
      await page.waitForSelector(selector)
      t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, `${hash} fits a 390 px phone`)
      t.same(await seriousViolations(page), [], `${hash} at 390 px: no serious or critical axe violation`)
    }
  })
}
