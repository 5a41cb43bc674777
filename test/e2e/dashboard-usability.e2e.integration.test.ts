// The dashboard for people on a phone, on a keyboard, with long names and with a screen reader, in
// Debian's headless Chromium (playwright-core; never a downloaded browser): one account with 60
// events (one named with 220 characters), then each signed-in page at desktop width and at 390x844.
// axe-core (npm) is evaluated in the page and must find no serious or critical violation.
// No timed assertions: every wait polls generously.
import t, { type Test } from 'tap'
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { seriousViolations } from '../support/axe.js'
import { CHROMIUM, freshPage, launchChromium } from '../support/browser.js'
import { startDashboard, type DashboardTestServices } from '../support/dashboard-harness.js'

const WAIT = 30_000
const PASSWORD = 'a long enough password'
const LONG_NAME = 'checkout_' + 'x'.repeat(211)
const PAGES = ['live', 'keys', 'usage', 'explorer', 'definitions', 'users/user_7', 'account'] as const

/** Horizontal overflow: the document wider than the viewport, or visible elements sticking out of it
 * (elements inside a box that clips or scrolls its overflow are that box's business). */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; outside: string[] }> {
  return page.evaluate(() => {
    const clipped = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== 'visible') return true
      return false
    }
    const outside: string[] = []
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0 || clipped(el)) continue
      if (r.left < -1 || r.right > innerWidth + 1)
        outside.push(
          `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} ${Math.round(r.left)}..${Math.round(r.right)}`,
        )
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, outside: outside.slice(0, 5) }
  })
}

async function inViewport(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox()
  const vp = page.viewportSize()!
  return !!box && box.x >= -1 && box.y >= -1 && box.x + box.width <= vp.width + 1 && box.y < vp.height && box.height > 0
}

const READY: Record<string, string> = {
  live: '#live-rows tr',
  keys: '#keys-table tbody tr[data-key-id]',
  usage: '#hourly-chart',
  explorer: '#events-table',
  definitions: '#definitions-events',
  users: '#events-table',
  account: '#password-form',
}

/** Loads a page afresh (a new document, as a reload or a shared link does) and waits until it has drawn. */
async function open(page: Page, s: DashboardTestServices, hash: string) {
  await page.goto('about:blank')
  await page.goto(`${s.dashboardUrl}/#/${hash}`)
  await page.waitForSelector(READY[hash.split(/[/?]/)[0]!]!)
  await page.waitForFunction(() => !/Loading/.test(document.querySelector('main')?.textContent ?? ''))
}

function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = c
      .match(/\d+/g)!
      .slice(0, 3)
      .map((x) => {
        const v = Number(x) / 255
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
      }) as [number, number, number]
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number]
  return (x + 0.05) / (y + 0.05)
}

async function setUp(t: Test) {
  const s = await startDashboard(t)
  const browser = await launchChromium(t)
  const desktop = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    timezoneId: 'UTC',
    locale: 'en-GB',
  })
  const page = await desktop.newPage()
  page.setDefaultTimeout(WAIT)
  const pageErrors: string[] = []
  const missing: string[] = []
  page.on('pageerror', (e) => pageErrors.push(e.message))
  page.on('response', (r) => {
    if (r.status() === 404) missing.push(r.url())
  })
  page.on('dialog', (d) => void d.accept())

  const email = `usable-${s.suffix}@example.com`
  await page.goto(`${s.dashboardUrl}/#/signup`)
  await page.fill('input[name=email]', email)
  await page.fill('input[name=password]', PASSWORD)
  await page.click('#signup-submit')
  await page.waitForSelector('#create-key')
  await page.fill('form input[name=name]', 'web')
  await page.click('#create-key')
  const secret = (await page.textContent('#new-key-secret'))!.trim()

  // 60 events: 59 ordinary ones over three names, then one with a 220-character name, newest.
  const names = ['page_viewed', 'checkout_started', 'invite_sent']
  const events = Array.from({ length: 59 }, (_, i) => ({
    type: 'event',
    name: names[i % 3],
    user: { id: `user_${i % 8}` },
    properties: { n: i, plan: 'pro' },
  }))
  for (let i = 0; i < events.length; i += 30) {
    const r = await s.post(
      '/v1/events',
      { sent_at: new Date().toISOString(), events: events.slice(i, i + 30) },
      { key: secret },
    )
    t.equal(r.status, 200, 'a batch is stored')
  }
  t.equal(
    (
      await s.post(
        '/v1/event',
        { event: LONG_NAME, user: { id: 'user_7' }, properties: { plan: 'pro', seats: 3 } },
        { key: secret },
      )
    ).status,
    200,
  )
  const identify = {
    type: 'identify',
    user: { id: 'user_1' },
    traits: { email: 'ada@example.com', company: 'Acme', seats: 4 },
  }
  t.equal(
    (await s.post('/v1/events', { sent_at: new Date().toISOString(), events: [identify] }, { key: secret })).status,
    200,
  )
  await s.waitForRows(`SELECT event_id FROM ${s.database}.events`, 60, WAIT)
  await s.waitForRows(`SELECT trait_key FROM ${s.database}.user_traits WHERE trait_key = 'seats'`, 1, WAIT)
  return { s, browser, desktop, page, email, secret, pageErrors, missing }
}

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('the dashboard on a phone, by keyboard, with long names and assistive technology', async (t) => {
    const { s, browser, desktop, page, email, secret, pageErrors, missing } = await setUp(t)

    t.test('a new key: its secret is announced, the Node snippet exits, one word for revoking', async (t) => {
      await open(page, s, 'keys')
      await page.fill('form input[name=name]', 'second')
      await page.click('#create-key')
      await page.waitForSelector('#new-key-secret')
      t.match(
        (await page.locator('[role=status]').allTextContents()).join(' '),
        /shown below, once/,
        'a status region announces the secret',
      )
      t.ok(await page.evaluate(() => !!document.activeElement?.closest('.secret')), 'focus moves to the secret')
      t.match(
        await page.textContent('#new-key-node-snippet'),
        /await client\.shutdown\(\)/,
        'the Node snippet shuts the client down, so the process exits',
      )
      const action = (await page.locator('#keys-table [data-action=revoke]').first().textContent())!.trim()
      await page.click('#keys-table tbody tr:has-text("second") [data-action=revoke]')
      await page.waitForSelector('#keys-table [data-testid=key-status] >> text=revoked')
      t.equal(action, 'Revoke', 'the button says the word the status then shows (revoked)')
      t.not(secret, '')
    })

    t.test('Live shows the last events at once, after a reload too, then streams', async (t) => {
      await page.goto('about:blank')
      await page.goto(`${s.dashboardUrl}/#/live`)
      await page.waitForFunction(
        () => document.querySelectorAll('#live-rows tr[data-event-id]').length >= 50,
        undefined,
        { timeout: WAIT },
      )
      t.equal(
        await page.locator('#live-rows tr[data-event-id]').count(),
        50,
        'the last 50 events, with no new one sent',
      )
      t.match(await page.textContent('#live-rows tr[data-event-id]:first-child'), /checkout_x/, 'newest first')
      await page.waitForSelector('.status-dot.on')
      const focused = page.locator('#live-rows tr[data-event-id]:nth-child(3) button')
      await focused.focus()
      const focusedId = await page.getAttribute('#live-rows tr[data-event-id]:nth-child(3)', 'data-event-id')
      t.equal((await s.post('/v1/event', { event: 'after_open', user: { id: 'user_1' } }, { key: secret })).status, 200)
      await page.waitForSelector('#live-rows tr[data-event-id] >> text=after_open')
      t.equal(await page.locator('#live-rows tr[data-event-id]').count(), 51, 'then streams, each event once')
      t.equal(
        await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.eventId),
        focusedId,
        'a new event keeps the keyboard focus on its row',
      )
      await page.keyboard.press('Enter')
      await page.waitForSelector('#detail')
      t.equal((await s.post('/v1/event', { event: 'while_open', user: { id: 'user_1' } }, { key: secret })).status, 200)
      await page.waitForSelector('#live-rows tr[data-event-id] >> text=while_open')
      await page.keyboard.press('Escape')
      t.equal(
        await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.eventId),
        focusedId,
        'rows redrawn while the drawer was open: Escape still returns to the row',
      )
    })

    t.test('a 220-character event name leaves Live and Explorer at the viewport width', async (t) => {
      await open(page, s, 'live')
      await page.waitForSelector('.status-dot.on')
      t.equal(
        (
          await s.post(
            '/v1/event',
            { event: LONG_NAME, user: { id: 'user_7' }, properties: { plan: 'pro', seats: 3 } },
            { key: secret },
          )
        ).status,
        200,
      )
      for (const hash of ['live', 'explorer']) {
        if (hash !== 'live') await open(page, s, hash)
        await page.waitForSelector(`${hash === 'live' ? '#live-rows' : '#events-table'} tr >> text=checkout_x`)
        const o = await overflow(page)
        t.ok(o.scrollWidth <= o.innerWidth, `${hash}: ${o.scrollWidth} px wide in a ${o.innerWidth} px window`)
        t.same(o.outside, [], `${hash}: nothing sticks out`)
      }
      t.equal(
        await page.getAttribute('#events-table button[title^=checkout_x]', 'title'),
        LONG_NAME,
        'the full name is in the title',
      )
    })

    t.test('every row opens a detail drawer by keyboard, in view, with properties and a raw toggle', async (t) => {
      for (const hash of ['live', 'explorer', 'users/user_7']) {
        await open(page, s, hash)
        const rowButton = page.locator('tr[data-event-id] button.rowlink[title^=checkout_x]').first()
        await rowButton.focus()
        t.ok(await rowButton.evaluate((b) => b === document.activeElement), `${hash}: a row can take the focus`)
        await page.keyboard.press('Enter')
        await page.waitForSelector('#detail[role=dialog]', { timeout: 10_000 })
        t.ok(await inViewport(page, '#detail'), `${hash}: the drawer is in view`)
        t.match(
          await page.textContent('#detail table:has(caption:text("Properties"))'),
          /plan\s*pro\s*seats\s*3/,
          `${hash}: properties as a table`,
        )
        t.notOk(await page.isVisible('#detail-raw'), `${hash}: the raw JSON waits behind its toggle`)
        await page.click('#detail-raw-toggle')
        t.match(
          JSON.parse((await page.textContent('#detail-raw'))!),
          { event: LONG_NAME, properties: { plan: 'pro', seats: 3 } },
          `${hash}: the raw JSON`,
        )
        await page.keyboard.press('Escape')
        t.equal(await page.locator('#detail').count(), 0, `${hash}: Escape closes it`)
        t.ok(await rowButton.evaluate((b) => b === document.activeElement), `${hash}: focus goes back to the row`)
      }
      // A click on a low row: the detail is in view, not in a pane far above.
      await open(page, s, 'explorer')
      const last = page.locator('#events-table tr[data-event-id]').last()
      await last.scrollIntoViewIfNeeded()
      await last.locator('td').first().click()
      await page.waitForSelector('#detail', { timeout: 10_000 })
      t.ok(await inViewport(page, '#detail'), 'clicked low down, the drawer is in view')
    })

    t.test('Explorer and Live filter alike (substring) and keep the filters in the address', async (t) => {
      await open(page, s, 'explorer')
      await page.fill('input[name=event]', 'checkout')
      await page.click('form button[type=submit]')
      await page.waitForFunction(() => /event=checkout/.test(location.hash))
      await page.waitForFunction(() => document.querySelectorAll('#events-table tr[data-event-id]').length === 22)
      const names = await page.locator('#events-table tr[data-event-id] button.rowlink').allTextContents()
      t.ok(
        names.length === 22 && names.every((n) => n.includes('checkout')),
        'Explorer: "checkout" finds checkout_started and the long name',
      )
      await page.reload()
      await page.waitForSelector('#events-table tr[data-event-id]')
      t.equal(await page.inputValue('input[name=event]'), 'checkout', 'Explorer: the filter survives a reload')
      t.equal(await page.locator('#events-table tr[data-event-id]').count(), 22, 'and still applies')

      await open(page, s, 'live')
      await page.waitForSelector('#live-rows tr[data-event-id]')
      await page.fill('#filter-event', 'checkout')
      await page.waitForFunction(() => /event=checkout/.test(location.hash))
      await page.reload()
      await page.waitForSelector('#live-rows tr[data-event-id]')
      t.equal(await page.inputValue('#filter-event'), 'checkout', 'Live: the filter survives a reload')
      const live = await page.locator('#live-rows tr[data-event-id] button.rowlink').allTextContents()
      t.ok(live.length > 0 && live.every((n) => n.includes('checkout')), 'Live: the same substring match')
    })

    t.test('desktop: titles, no serious axe violation, contrast of fields and test bars, favicon', async (t) => {
      const titles = new Set<string>()
      for (const hash of PAGES) {
        await open(page, s, hash)
        const title = await page.title()
        titles.add(title)
        t.not(title, 'Event tracking dashboard', `${hash}: the title names the page (${title})`)
        t.same(await seriousViolations(page), [], `${hash}: no serious or critical axe violation`)
      }
      t.equal(titles.size, PAGES.length, 'every page has its own title')
      await open(page, s, 'usage')
      const swatch = await page.evaluate(() => getComputedStyle(document.querySelector('.sw.test')!).backgroundColor)
      const border = await page.evaluate(() => {
        const i = document.body.appendChild(document.createElement('input'))
        const c = getComputedStyle(i).borderTopColor
        i.remove()
        return c
      })
      t.ok(contrast(border, 'rgb(255, 255, 255)') >= 3, `input borders reach 3:1 (${border})`)
      t.ok(contrast(swatch, 'rgb(255, 255, 255)') >= 3, `the test-key bars reach 3:1 (${swatch})`)
      const icon = await page.request.get(`${s.dashboardUrl}/favicon.ico`)
      t.equal(icon.status(), 200, 'the favicon is served')
      t.equal(icon.headers()['content-type'], 'image/x-icon')
    })

    t.test('phone width 390x844: no page overflows, the account bar stays on screen, no axe violation', async (t) => {
      const p = await freshPage(browser, t, WAIT, {
        viewport: { width: 390, height: 844 },
        timezoneId: 'UTC',
        locale: 'en-GB',
        storageState: await desktop.storageState(),
      })
      p.on('pageerror', (e) => pageErrors.push(e.message))
      for (const hash of PAGES) {
        await open(p, s, hash)
        const o = await overflow(p)
        t.ok(o.scrollWidth <= o.innerWidth, `${hash}: ${o.scrollWidth} px wide in a ${o.innerWidth} px window`)
        t.same(o.outside, [], `${hash}: nothing sticks out`)
        for (const sel of ['#who-email', '#signout']) t.ok(await inViewport(p, sel), `${hash}: ${sel} on screen`)
        t.same(await seriousViolations(p), [], `${hash}: no serious or critical axe violation`)
      }
      for (const [hash, chart] of [
        ['usage', '#hourly-chart'],
        ['explorer', '#top-chart'],
      ] as const) {
        await open(p, s, hash)
        await p.waitForSelector(chart)
        const scale = await p.evaluate((sel) => {
          const svg = document.querySelector(sel) as SVGSVGElement
          return svg.getBoundingClientRect().width / svg.viewBox.baseVal.width
        }, chart)
        t.ok(scale >= 0.9, `${hash}: ${chart} is drawn at its size, its text not shrunk (scale ${scale.toFixed(2)})`)
      }
      await open(p, s, 'live')
      await p.locator('#live-rows tr[data-event-id] button.rowlink').first().click()
      await p.waitForSelector('#detail', { timeout: 10_000 })
      t.ok(await inViewport(p, '#detail'), 'the detail drawer fits the phone')
      await p.keyboard.press('Escape')
    })

    t.test(
      'Definitions: every event name with counts, first and last seen, property types and examples; traits too',
      async (t) => {
        await open(page, s, 'definitions')
        const row = (event: string) => page.locator(`#definitions-events tr[data-event="${event}"]`)
        t.equal(
          await page.locator('#definitions-events tr[data-event]').count(),
          6,
          'the six event names of the account',
        )
        const checkout = (await row('checkout_started').textContent())!
        t.same(
          await row('checkout_started')
            .locator('td')
            .allTextContents()
            .then((c) => c.slice(1, 3)),
          ['20', '20'],
          'checkout_started: 20 in the last 7 and 30 days',
        )
        t.match(checkout, /n\s*number e\.g\. \d+/, 'property n: number, with examples')
        t.match(checkout, /plan\s*string e\.g\. "pro"/, 'property plan: string, e.g. "pro"')
        t.match(
          await row(LONG_NAME).textContent(),
          /seats\s*number e\.g\. 3/,
          'the long name too, with its own properties',
        )
        const seats = (await page.locator('#definitions-traits tr[data-trait=seats]').textContent())!
        t.match(seats, /seats\s*1\s*number e\.g\. 4/, 'trait seats: 1 user, number, e.g. 4')
        await page.selectOption('#definitions-env', 'test')
        await page.waitForSelector('#definitions-events >> text=No events yet.')
        t.match(page.url(), /#\/definitions\?env=test$/, 'the key type filter is kept in the address')
      },
    )

    t.test('passwords: common and all-space ones are refused, and the form says the rule', async (t) => {
      const c = s.client()
      for (const password of ['12345678', '        ', 'Password1']) {
        const r = await c.post('/api/signup', {
          email: `weak-${s.suffix}-${password.length}${password[0]}@example.com`.replace(' ', 's'),
          password,
        })
        t.equal(r.status, 400, `"${password}" is refused`)
        t.equal(r.body.error.code, 'VALIDATION_ERROR')
      }
      const p = await freshPage(browser, t, WAIT)
      await p.goto(`${s.dashboardUrl}/#/signup`)
      await p.waitForSelector('#signup-submit')
      t.match(await p.textContent('main'), /not a common password/, 'the sign-up form states the rule')
      await p.fill('input[name=email]', `weak-form-${s.suffix}@example.com`)
      await p.fill('input[name=password]', '12345678')
      await p.click('#signup-submit')
      await p.waitForSelector('main .error')
      t.match(await p.textContent('main .error'), /common/, 'and says why a password is refused')
      t.same(await seriousViolations(p), [], 'sign-up: no serious or critical axe violation')
    })

    t.test('Usage asks for the minute every 5 s and for the month once a minute (U35)', async (t) => {
      // A page of its own with the session's cookie and a clock the test moves (Playwright's fake timers).
      const context = await browser.newContext()
      t.teardown(() => context.close())
      await context.addCookies(await page.context().cookies())
      await context.clock.install()
      const p = await context.newPage()
      p.setDefaultTimeout(WAIT)
      const asked: string[] = []
      const isUsage = (url: string) => new URL(url).pathname.startsWith('/api/usage')
      p.on('request', (r) => {
        if (isUsage(r.url())) asked.push(new URL(r.url()).pathname)
      })
      await p.goto(`${s.dashboardUrl}/#/usage`)
      await p.waitForSelector('#hourly-chart')
      t.same(asked, ['/api/usage'], 'the page opens with the whole answer')
      for (let i = 1; i <= 12; i++) {
        const answered = p.waitForResponse((r) => isUsage(r.url()))
        await p.clock.runFor(5000)
        await answered
      }
      t.same(
        asked,
        ['/api/usage', ...Array<string>(11).fill('/api/usage/activity'), '/api/usage'],
        'the minute and the hours every 5 s, the month every minute',
      )
      await p.waitForSelector('#hourly-chart')
      t.match(await p.textContent('#usage-requests'), 'Requests this minute', 'the page still shows every panel')
    })

    t.test('a session ended elsewhere lands on sign-in with a message', async (t) => {
      await open(page, s, 'keys')
      const elsewhere = s.client()
      t.equal((await elsewhere.post('/api/signin', { email, password: PASSWORD })).status, 200)
      t.equal((await elsewhere.post('/api/signout-everywhere')).status, 200)
      await page.click('nav a[data-page=usage]')
      await page.waitForSelector('#signin-submit')
      t.match(
        await page.textContent('#signin-notice', { timeout: 10_000 }),
        /session has ended/,
        'the sign-in page says why',
      )
      t.match(await page.title(), /Sign in/)
    })

    t.same(pageErrors, [], 'no script errors in the pages')
    t.same(missing, [], 'no request of the pages answered 404')
  })
}
