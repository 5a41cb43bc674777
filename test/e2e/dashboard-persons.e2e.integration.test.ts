// The Persons page (docs/design.md U11): the account's users from real ingested data, searched by id,
// email or trait value (kept in the URL), paged, each opening the user page; an anonymous visitor
// since identified is listed under the person it became (H50), not as a person of its own. Reached
// and used by keyboard; axe-core finds no serious or critical violation at desktop and at 390 px.
import t from 'tap'
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { seriousViolations } from '../support/axe.js'
import { CHROMIUM, freshPage, launchChromium, signUpInPage } from '../support/browser.js'
import { startDashboard } from '../support/dashboard-harness.js'

const WAIT = 30_000
const USERS = Array.from({ length: 55 }, (_, i) => `p-${String(i).padStart(3, '0')}`)

/** The user ids of the rows shown once the table holds `n` rows. */
async function shownIds(page: Page, n: number): Promise<string[]> {
  await page.waitForFunction((n) => document.querySelectorAll('#persons-table tbody tr[data-user-id]').length === n, n)
  return page.$$eval('#persons-table tbody tr[data-user-id]', (rows) =>
    rows.map((r) => r.getAttribute('data-user-id')!),
  )
}

async function search(page: Page, text: string) {
  await page.fill('#persons-search', text)
  await page.press('#persons-search', 'Enter')
}

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('Persons: list, search, pages, and the way to a person', async (t) => {
    const s = await startDashboard(t)
    const browser = await launchChromium(t)
    const page = await freshPage(browser, t, WAIT, { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })
    await signUpInPage(page, s.dashboardUrl, `persons-${s.suffix}@example.com`, 'Persons')
    await page.fill('form input[name=name]', 'web')
    await page.click('#create-key')
    const key = (await page.textContent('#new-key-secret'))!.trim()
    const bearer = { headers: { authorization: `Bearer ${key}` } }
    const basic = { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }

    const events = USERS.map((id) => ({ type: 'event', name: 'signed_in', user: { id } }))
    t.equal(
      (await s.post('/v1/events', { sent_at: new Date().toISOString(), events }, bearer)).status,
      200,
      '55 users send an event',
    )
    const grace = {
      userId: 'p-007',
      anonymousId: 'anon-zz',
      traits: { email: 'grace@example.com', plan: 'enterprise' },
    }
    t.equal((await s.post('/v1/page', { anonymousId: 'anon-zz', name: 'Home' }, basic)).status, 200)
    t.equal((await s.post('/v1/identify', grace, basic)).status, 200, 'the visitor identifies as p-007')
    await s.waitForRows(`SELECT 1 FROM ${s.database}.events`, USERS.length + 1, WAIT)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.identity_links WHERE user_id = 'p-007'`, 1, WAIT)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.user_traits WHERE trait_key = 'plan'`, 1, WAIT)
    // The list reads `users`, which materialized views fill from the events and identifies inserts: ClickHouse
    // commits their parts after the source parts, so wait for every id and the identify's email there too.
    await s.waitForRows(`SELECT DISTINCT user_id FROM ${s.database}.users`, USERS.length + 1, WAIT)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.users_view WHERE user_id = 'p-007' AND email != ''`, 1, WAIT)

    await page.click('#nav a[data-page=persons]')
    t.same(await shownIds(page, 50), USERS.slice(0, 50), 'the first page: 50 persons by id, anon-zz not among them')
    t.equal(await page.title(), 'Persons · Event tracking')
    await page.click('#persons-next')
    t.same(await shownIds(page, 5), USERS.slice(50), 'the next page holds the other five')
    t.ok(await page.isDisabled('#persons-next'), 'and is the last')
    await page.click('#persons-prev')
    t.same(await shownIds(page, 50), USERS.slice(0, 50), 'Previous goes back')

    await search(page, 'GRACE@example')
    t.same(await shownIds(page, 1), ['p-007'], 'found by email, whatever the case')
    t.equal(await page.textContent('#persons-table tbody tr td:nth-child(2)'), 'grace@example.com')
    await search(page, 'enterprise')
    t.same(await shownIds(page, 1), ['p-007'], 'found by a trait value')
    await search(page, 'p-05')
    t.same(await shownIds(page, 5), USERS.slice(50), 'found by part of the id')
    t.match(page.url(), /#\/persons\?q=p-05$/, 'the search is in the URL')
    await page.goto('about:blank')
    await page.goto(`${s.dashboardUrl}/#/persons?q=p-05`)
    t.same(await shownIds(page, 5), USERS.slice(50), 'and a reloaded link searches again')
    await search(page, 'nobody-has-this')
    await page.waitForSelector('#persons-table td.muted')
    t.equal(await page.textContent('#persons-count'), 'No persons found')
    t.same(await seriousViolations(page), [], 'Persons: no serious or critical axe violation')

    // By keyboard: type the search, Enter, Tab to the person's link, Enter.
    await page.focus('#persons-search')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('grace')
    await page.keyboard.press('Enter')
    await shownIds(page, 1)
    let tabs = 0
    while (!(await page.evaluate(() => document.activeElement?.matches('#persons-table a') ?? false)) && tabs++ < 10)
      await page.keyboard.press('Tab')
    t.ok(tabs <= 10, 'the person link is reached with Tab')
    await page.keyboard.press('Enter')
    await page.waitForSelector('#anonymous-ids')
    t.match(page.url(), /#\/users\/p-007$/, 'Enter opens the user page')
    t.same(await page.$$eval('#anonymous-ids li', (li) => li.map((x) => x.textContent)), ['anon-zz'])
    const identifies = await page.$$eval('#identifies-table tbody tr[data-event-id]', (rows) =>
      rows.map((r) => `${r.children[1]!.textContent} ${r.children[3]!.textContent}`),
    )
    t.same(identifies, ['identify p-007'], "the person's identify is in their history, beside the events")
    await page.click('#identifies-table button.rowlink')
    await page.waitForSelector('#detail')
    t.match(await page.textContent('#detail'), /grace@example\.com/, 'its traits open in the drawer')
    await page.keyboard.press('Escape')
    t.same(await seriousViolations(page), [], 'the user page with its identifies: no serious or critical axe violation')

    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('about:blank')
    await page.goto(`${s.dashboardUrl}/#/persons`)
    await shownIds(page, 50)
    t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'Persons fits a 390 px phone')
    t.same(await seriousViolations(page), [], 'Persons at 390 px: no serious or critical axe violation')
  })
}
