// The Trends page (U13, U14, U27) on events sent through ingest: a breakdown by a property or a user trait
// and a property filter show the stored counts in the table beside the chart, the view is kept in the URL (a reload
// shows the same numbers), the CSV link downloads the same numbers, and the page fits a 390 px phone.
// In Debian's headless Chromium; axe-core finds no serious or critical violation at desktop and 390 px.
import t from 'tap'
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { seriousViolations } from '../support/axe.js'
import { CHROMIUM, freshPage, launchChromium, signUpInPage } from '../support/browser.js'
import { startDashboard } from '../support/dashboard-harness.js'

const WAIT = 30_000

/** Each column of the numbers table summed over its rows: { series: total }. */
const tableTotals = (page: Page) =>
  page.$eval('#trend-table', (table) => {
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent!.trim()).slice(1)
    const totals: Record<string, number> = Object.fromEntries(heads.map((h) => [h, 0]))
    for (const tr of table.querySelectorAll('tbody tr'))
      [...tr.querySelectorAll('td')].forEach((td, i) => {
        totals[heads[i]!]! += Number(td.textContent!.replace(/\D/g, ''))
      })
    return totals
  })

/** The same sums from the CSV the page links to, downloaded with the page's session. */
const csvTotals = (page: Page) =>
  page.evaluate(async () => {
    const href = (document.querySelector('#trend-csv') as HTMLAnchorElement).href
    const lines = (await (await fetch(href)).text()).trim().split('\r\n')
    const heads = lines[0]!.split(',').slice(1)
    const totals: Record<string, number> = Object.fromEntries(heads.map((h) => [h, 0]))
    for (const line of lines.slice(1))
      line
        .split(',')
        .slice(1)
        .forEach((n, i) => {
          totals[heads[i]!]! += Number(n)
        })
    return totals
  })

/** The numbers table once it has the series named (a column per breakdown value). */
const loaded = (page: Page, ...columns: string[]) =>
  page.waitForFunction((columns) => {
    const head = document.querySelector('#trend-table thead')?.textContent ?? ''
    return head !== '' && columns.every((c) => head.includes(c))
  }, columns)

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('Trends: a breakdown, a filter, the URL and the CSV', async (t) => {
    const s = await startDashboard(t)
    const browser = await launchChromium(t)
    const page = await freshPage(browser, t, WAIT, { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })
    await signUpInPage(page, s.dashboardUrl, `trends-${s.suffix}@example.com`, 'Trends')
    await page.fill('form input[name=name]', 'web')
    await page.click('#create-key')
    const key = (await page.textContent('#new-key-secret'))!.trim()
    const bearer = { headers: { authorization: `Bearer ${key}` } }

    const signup = (plan: string, country: string) => ({
      type: 'event',
      name: 'signup',
      user: { id: `u-${plan}-${country}` },
      properties: { plan, country },
    })
    const events = [
      signup('pro', 'fr'),
      signup('pro', 'fr'),
      signup('pro', 'us'),
      signup('free', 'fr'),
      signup('free', 'us'),
      signup('enterprise', 'us'),
      { type: 'event', name: 'page_viewed', user: { id: 'u-x' }, properties: { plan: 'pro', country: 'fr' } },
    ]
    t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, bearer)).status, 200)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.events`, events.length, WAIT)

    await page.goto(`${s.dashboardUrl}/#/trends?event=signup&period=24h&interval=hour&breakdown=plan&compare=1`)
    await loaded(page, 'enterprise', 'Previous period')
    t.equal(await page.title(), 'Trends · Event tracking')
    t.same(
      await tableTotals(page),
      { pro: 3, free: 2, enterprise: 1, 'Previous period (total)': 0 },
      'signups broken down by plan, nothing the day before',
    )

    // By keyboard: the button adds a filter and moves the focus to its key; Enter applies the form.
    await page.focus('text=Add filter')
    await page.keyboard.press('Enter')
    await page.keyboard.type('country')
    await page.fill('input[name=filter-value]', 'fr')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => !document.querySelector('#trend-table thead')?.textContent?.includes('enterprise'))
    const filtered = { pro: 2, free: 1, 'Previous period (total)': 0 }
    t.same(await tableTotals(page), filtered, 'the filter keeps the signups from France')
    t.match(page.url(), /[?&]filter=country%3Dfr\b/, 'the filter is in the URL')
    t.match(page.url(), /[?&]breakdown=plan\b/, 'and the breakdown')
    t.same(await csvTotals(page), { pro: 2, free: 1 }, 'the CSV has the same numbers (current period)')
    t.same(await seriousViolations(page), [], 'Trends: no serious or critical axe violation')

    const shared = page.url()
    await page.goto('about:blank')
    await page.goto(shared)
    await loaded(page, 'pro', 'free')
    t.same(await tableTotals(page), filtered, 'a reloaded link shows the same view')
    t.equal(await page.inputValue('input[name=filter-key]'), 'country')
    t.equal(await page.inputValue('input[name=breakdown]'), 'plan')

    await page.goto(`${s.dashboardUrl}/#/trends?period=24h&interval=hour`)
    await loaded(page, 'events')
    t.same(await tableTotals(page), { events: 7 }, 'all events without a breakdown')

    // By a user trait (U27): each signup under its person's latest `tier`, picked on the page, kept in the URL.
    const tiers = [
      ['u-pro-fr', 'gold'],
      ['u-pro-us', 'gold'],
      ['u-free-fr', 'basic'],
    ]
    const identifies = tiers.map(([id, tier]) => ({ type: 'identify', user: { id }, traits: { tier } }))
    t.equal((await s.post('/v1/events', { sent_at: new Date().toISOString(), events: identifies }, bearer)).status, 200)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.user_traits FINAL WHERE trait_key = 'tier'`, 3, WAIT)
    await page.goto(`${s.dashboardUrl}/#/trends?event=signup&period=24h&interval=hour`)
    await loaded(page, 'events')
    await page.selectOption('select[name=breakdown_kind]', 'trait')
    await page.fill('input[name=breakdown]', 'tier')
    await page.click('#trend-form button[type=submit]')
    await loaded(page, 'gold', 'basic')
    const byTier = { gold: 3, events: 2, basic: 1 }
    t.same(await tableTotals(page), byTier, 'signups by their persons’ tier; the rest under no value (named events)')
    t.match(page.url(), /[?&]breakdown_trait=tier\b/, 'the trait breakdown is in the URL')
    t.same(await csvTotals(page), byTier, 'the CSV has the same numbers')
    t.same(await seriousViolations(page), [], 'Trends by a trait: no serious or critical axe violation')
    const byTrait = page.url()
    await page.goto('about:blank')
    await page.goto(byTrait)
    await loaded(page, 'gold', 'basic')
    t.equal(await page.inputValue('select[name=breakdown_kind]'), 'trait', 'a reloaded link keeps the kind')
    t.equal(await page.inputValue('input[name=breakdown]'), 'tier')

    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('about:blank')
    await page.goto(shared)
    await loaded(page, 'pro', 'free')
    t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'Trends fits a 390 px phone')
    t.same(await seriousViolations(page), [], 'Trends at 390 px: no serious or critical axe violation')
  })
}
