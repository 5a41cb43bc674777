// What the Segment-compatible API stores, as the dashboard shows it (docs/api.md "Segment-compatible
// API", H49-H52): Live has a type column and a type filter kept in the URL, and a person's page shows the
// anonymous ids that now map to them with the events from before they were known. A visitor browses
// anonymously (two page calls), then identifies; a screen, a group and a track follow. In Debian's
// headless Chromium; axe-core finds no serious or critical violation at desktop and at 390 px.
import t from 'tap'
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { CHROMIUM, freshPage, launchChromium, signUpInPage } from '../support/browser.js'
import { startDashboard } from '../support/dashboard-harness.js'
import { seriousViolations } from '../support/axe.js'

const WAIT = 30_000

/** The Type and Event cells of Live's rows, newest first. */
const liveRows = (page: Page) =>
  page.$$eval('#live-rows tr[data-event-id]', (rows) =>
    rows.map((r) => `${r.children[1]!.textContent!.trim()} ${r.children[2]!.textContent!.trim()}`),
  )

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('Segment calls in Live and on the person page', async (t) => {
    const s = await startDashboard(t)
    const browser = await launchChromium(t)
    const page = await freshPage(browser, t, WAIT, { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' })
    await signUpInPage(page, s.dashboardUrl, `segment-${s.suffix}@example.com`, 'Segment')
    await page.fill('form input[name=name]', 'web')
    await page.click('#create-key')
    const key = (await page.textContent('#new-key-secret'))!.trim()
    const basic = { headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` } }

    const sent: Array<[string, Record<string, unknown>]> = [
      ['/v1/page', { anonymousId: 'anon-visitor-1', name: 'Pricing', properties: { path: '/pricing' } }],
      ['/v1/page', { anonymousId: 'anon-visitor-1', name: 'Signup', properties: { path: '/signup' } }],
      ['/v1/identify', { userId: 'ada', anonymousId: 'anon-visitor-1', traits: { email: 'ada@example.com' } }],
      ['/v1/screen', { userId: 'ada', name: 'Settings' }],
      ['/v1/group', { userId: 'ada', groupId: 'acme', traits: { name: 'Acme' } }],
      ['/v1/track', { userId: 'ada', event: 'order_completed', properties: { total: 42 } }],
    ]
    // Live open first: the stream brings every call, identifies too (the history it opens with holds events).
    await page.goto(`${s.dashboardUrl}/#/live`)
    await page.waitForFunction(() => /connected/.test(document.querySelector('main')?.textContent ?? ''))
    for (const [path, body] of sent) t.equal((await s.post(path, body, basic)).status, 200, `${path} is stored`)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.events`, 5, WAIT)
    await s.waitForRows(`SELECT 1 FROM ${s.database}.identity_links WHERE user_id = 'ada'`, 1, WAIT)

    await page.waitForFunction(() => document.querySelectorAll('#live-rows tr[data-event-id]').length >= 6)
    t.same(
      (await liveRows(page)).sort(),
      [
        'event order_completed',
        'group $group',
        'identify identify',
        'page page_viewed',
        'page page_viewed',
        'screen screen_viewed',
      ],
      'each call shows its type',
    )
    t.same(await page.$$eval('table.events thead th', (th) => th.map((x) => x.textContent)), [
      'Received',
      'Type',
      'Event',
      'User',
      'Key type',
    ])

    await page.selectOption('#filter-type', 'identify')
    await page.waitForFunction(() => document.querySelectorAll('#live-rows tr[data-event-id]').length === 1)
    t.same(await liveRows(page), ['identify identify'], 'the type filter keeps the identify')
    await page.selectOption('#filter-type', 'page')
    await page.waitForFunction(() => document.querySelectorAll('#live-rows tr[data-event-id]').length === 2)
    t.same(await liveRows(page), ['page page_viewed', 'page page_viewed'], 'and then the page calls')
    t.match(page.url(), /[?&]type=page\b/, 'the filter is in the URL')
    await page.goto('about:blank')
    await page.goto(`${s.dashboardUrl}/#/live?type=page`)
    await page.waitForFunction(() => document.querySelectorAll('#live-rows tr[data-event-id]').length === 2)
    t.same(await liveRows(page), ['page page_viewed', 'page page_viewed'], 'a reloaded link keeps the filter')
    t.equal(await page.inputValue('#filter-type'), 'page')
    t.same(await seriousViolations(page), [], 'Live: no serious or critical axe violation')

    await page.goto(`${s.dashboardUrl}/#/users/ada`)
    await page.waitForSelector('#anonymous-ids')
    t.same(await page.$$eval('#anonymous-ids li', (li) => li.map((x) => x.textContent)), ['anon-visitor-1'])
    const history = await page.$$eval('#events-table tbody tr[data-event-id]', (rows) =>
      rows.map((r) => `${r.children[2]!.textContent!.trim()} ${r.children[3]!.textContent!.trim()}`).sort(),
    )
    t.same(
      history,
      [
        '$group ada',
        'order_completed ada',
        'page_viewed anon-visitor-1',
        'page_viewed anon-visitor-1',
        'screen_viewed ada',
      ],
      "the person's history includes the visits from before they were known",
    )
    t.same(await seriousViolations(page), [], 'user page: no serious or critical axe violation')

    await page.setViewportSize({ width: 390, height: 844 })
    for (const hash of ['live?type=page', 'users/ada']) {
      await page.goto('about:blank')
      await page.goto(`${s.dashboardUrl}/#/${hash}`)
      await page.waitForSelector(hash.startsWith('live') ? '#live-rows tr[data-event-id]' : '#anonymous-ids')
      t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, `${hash} fits a 390 px phone`)
      t.same(await seriousViolations(page), [], `${hash} at 390 px: no serious or critical axe violation`)
    }
  })
}
