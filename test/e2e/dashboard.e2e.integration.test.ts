// End to end in a real browser (Debian's headless Chromium driven by playwright-core; never a
// downloaded browser): sign up, create a live key and read its secret (shown once), send an event
// with it through the ingest's /v1/event, watch it arrive on the live stream page, see it counted
// on the usage page, revoke the key and see the next request refused with 401.
// The README's screenshots are taken by npm run screenshots (test/support/screenshots.ts), not here.
// No timed assertions: every wait polls generously.
import t from 'tap'
import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { CHROMIUM, freshPage, launchChromium, signUpInPage } from '../support/browser.js'
import { startDashboard } from '../support/dashboard-harness.js'
import { waitUntil } from '../support/harness.js'
import { eventRow } from '../support/event-rows.js'

const WAIT = 30_000

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
} else {
  t.test('a newcomer signs up, creates a live key, watches an event arrive, sees usage, revokes the key', async (t) => {
    const s = await startDashboard(t)
    const browser = await launchChromium(t)
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      timezoneId: 'UTC',
      locale: 'en-GB',
    })
    const page: Page = await context.newPage()
    page.setDefaultTimeout(WAIT)
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    page.on('dialog', (d) => void d.accept())

    // Sign up.
    const email = `newcomer-${s.suffix}@example.com`
    await signUpInPage(page, s.dashboardUrl, email, 'Acme Rockets')
    t.equal(await page.textContent('#who-email'), email, 'signed in as the new account')
    const accountId = s.admin.findAccountByEmail(email)?.account_id
    t.ok(accountId, 'the account is on the accounts topic')

    // Create a live key; the secret is shown once.
    await page.fill('form input[name=name]', 'production server')
    await page.selectOption('form select[name=type]', 'live')
    await page.click('#create-key')
    const secret = (await page.textContent('#new-key-secret'))!.trim()
    t.match(secret, /^svc_live_[A-Za-z0-9]{32,}$/, 'the secret is shown')
    for (const id of ['#new-key-node-snippet', '#new-key-browser-snippet'])
      t.match(await page.textContent(id), `apiKey: '${secret}'`, `${id}: an SDK snippet with the new key`)
    await page.waitForSelector('#keys-table tbody tr[data-key-id]')
    await page.click('text=I have stored it')
    t.equal(await page.locator('#new-key-secret').count(), 0, 'and gone once dismissed')
    await page.reload()
    await page.waitForSelector('#keys-table tbody tr[data-key-id]')
    t.notOk((await page.content()).includes(secret), 'never shown again')

    // Open the live stream, then send events with the key through the ingest.
    await page.click('nav a[data-page=live]')
    await page.waitForFunction(() => document.querySelector('.status-dot.on') !== null)
    const send = (event: string, user: Record<string, unknown>, properties: Record<string, unknown> = {}) =>
      s.post(
        '/v1/event',
        { event, user, properties, context: { platform: 'web', app_version: '1.4.2' } },
        { key: secret },
      )
    await waitUntil(
      async () =>
        (
          await send(
            'signup_completed',
            { id: 'user_1', email: 'ada@example.com', traits: { plan: 'pro' } },
            { source: 'landing_page' },
          )
        ).status === 200,
      WAIT,
      'the new key to work at the ingest',
    )
    await page.waitForSelector('#live-rows tr[data-event-id] >> text=signup_completed')
    t.pass('the event appears on the live stream page')
    for (const [event, user, props] of [
      ['project_created', 'user_1', { template: 'blank' }],
      ['invite_sent', 'user_1', { invitees: 2 }],
      ['page_viewed', 'user_2', { path: '/pricing' }],
    ] as const)
      t.equal((await send(event, { id: user }, props)).status, 200)
    await page.waitForFunction(() => document.querySelectorAll('#live-rows tr[data-event-id]').length >= 4)
    const first = await page.textContent('#live-rows tr[data-event-id]:first-child')
    t.match(first, /page_viewed/, 'newest first')
    await page.click('#live-rows tr[data-event-id] >> text=signup_completed')
    await page.click('#detail-raw-toggle')
    const detail = JSON.parse((await page.textContent('#detail-raw'))!)
    t.match(
      detail,
      {
        event: 'signup_completed',
        user_id: 'user_1',
        account_id: accountId,
        environment: 'live',
        properties: { source: 'landing_page' },
      },
      'click shows the full JSON',
    )
    await page.keyboard.press('Escape')
    await page.fill('#filter-user', 'user_2')
    t.equal(await page.locator('#live-rows tr[data-event-id]').count(), 1, 'the user filter narrows the list')
    await page.fill('#filter-user', '')

    // Usage counts the live-key events.
    await page.click('nav a[data-page=usage]')
    await page.waitForFunction(
      () => document.querySelector('#usage-events [data-testid=value]')?.textContent === '4',
      undefined,
      { timeout: WAIT, polling: 500 },
    )
    t.pass('the usage page counts the 4 live events this month')
    t.equal(await page.textContent('#plan-name'), 'hobby')
    t.ok((await page.locator('#hourly-chart rect.bar-live').count()) >= 1, 'the hourly chart has a bar')

    // An earlier month (U34): two events received last month, written as the projector writes them.
    const now = new Date()
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 10))
    const lastKey = lastMonth.toISOString().slice(0, 7)
    const old = [1, 2].map((i) =>
      eventRow({ event_id: `old-${i}`, account_id: accountId!, event: 'Old', ms: lastMonth.getTime() + i }),
    )
    await s.ch.insert({ table: `${s.database}.events`, values: old, format: 'JSONEachRow' })
    const usageValue = (v: string) =>
      page.waitForFunction((v) => document.querySelector('#usage-events [data-testid=value]')?.textContent === v, v, {
        timeout: WAIT,
        polling: 200,
      })
    await page.selectOption('#usage-month', lastKey)
    await usageValue('2')
    t.match(await page.textContent('#usage-events'), `Events in ${lastKey}`, "the month chosen: last month's events")
    t.match(page.url(), `#/usage?month=${lastKey}`, 'the month is kept in the address')
    await page.reload()
    await usageValue('2')
    t.equal(await page.inputValue('#usage-month'), lastKey, 'and the page opens on it again')
    await page.selectOption('#usage-month', '')
    await usageValue('4')
    t.match(await page.textContent('#usage-events'), 'Events this month', 'back to this month')

    // The explorer reads the same events from ClickHouse. The user page's email comes from `users`, which a
    // materialized view fills from the events inserts (its part committed after theirs): wait for it there.
    await s.waitForRows(`SELECT 1 FROM ${s.database}.users_view WHERE user_id = 'user_1' AND email != ''`, 1, WAIT)
    await page.click('nav a[data-page=explorer]')
    await page.waitForSelector('#top-chart rect.bar')
    await page.waitForSelector('#events-table >> text=invite_sent')
    await page.click('#events-table a >> text=user_1')
    await page.waitForSelector('text=trait: plan')
    const profile = await page.textContent('main')
    t.match(profile, /ada@example\.com/, 'the user page shows the email')
    t.match(profile, /signup_completed/, "and the user's recent events")

    // Revoke the key (confirmation accepted) and the next request is refused.
    await page.click('nav a[data-page=keys]')
    await page.waitForSelector('#keys-table tbody tr[data-key-id]')
    await page
      .waitForFunction(
        () => !/never/.test(document.querySelector('#keys-table tbody tr[data-key-id]')?.textContent ?? 'never'),
        undefined,
        { timeout: WAIT, polling: 1000 },
      )
      .catch(() => page.reload())
    await page.click('#keys-table [data-action=revoke]')
    await page.waitForSelector('#keys-table [data-testid=key-status] >> text=revoked')
    await waitUntil(
      async () => (await send('after_revoke', { id: 'user_1' })).status === 401,
      WAIT,
      'the revoked key to be refused',
    )
    const refused = await send('after_revoke', { id: 'user_1' })
    t.equal(refused.status, 401)
    t.equal(refused.body.error.code, 'INVALID_API_KEY')

    // Change the password on the account page: a second browser's session ends, this one stays.
    const otherPage = await freshPage(browser, t, WAIT)
    await otherPage.goto(`${s.dashboardUrl}/#/signin`)
    await otherPage.fill('input[name=email]', email)
    await otherPage.fill('input[name=password]', 'a long enough password')
    await otherPage.click('#signin-submit')
    await otherPage.waitForSelector('#who-email')
    await page.click('nav a[data-page=account]')
    await page.fill('input[name=current_password]', 'a long enough password')
    await page.fill('input[name=new_password]', 'an even longer password')
    await page.fill('input[name=confirm_password]', 'an even longer password')
    await page.click('#change-password')
    await page.waitForSelector('#password-changed')
    t.pass('the password is changed from the account page')
    await otherPage.click('nav a[data-page=keys]')
    await otherPage.waitForSelector('#signin-submit')
    t.pass("the other browser's session ended")

    // Sign out everywhere from the account page ends this session too.
    await page.click('nav a[data-page=keys]')
    await page.waitForSelector('#keys-table')
    await page.click('nav a[data-page=account]')
    await page.click('#signout-everywhere')
    await page.waitForSelector('#signin-submit')
    // Signed out, the account bar is gone: no stale email to mistake for a finished sign-in below,
    // no Sign out button to click while a sign-in is still on its way.
    t.notOk(await page.isVisible('#who'), 'signed out: the account bar and Sign out are hidden')
    t.notOk(await page.isVisible('#nav'), 'signed out: the navigation is hidden')
    await page.fill('input[name=email]', email)
    await page.fill('input[name=password]', 'an even longer password')
    await page.click('#signin-submit')
    await page.waitForSelector('#who-email')

    // Sign out ends the session.
    await page.click('#signout')
    await page.waitForSelector('#signin-submit')
    t.equal(await page.evaluate(async () => (await fetch('/api/me')).status), 401, 'the session is over on the server')

    // Signing out while a page is still loading: its late answer (401 now) must not draw an error
    // over the sign-in form. The keys list is held back until the sign-out is through.
    await page.fill('input[name=email]', email)
    await page.fill('input[name=password]', 'an even longer password')
    await page.click('#signin-submit')
    await page.waitForSelector('#who-email')
    let letKeysGo!: () => void
    const keysHeld = new Promise<void>((r) => (letKeysGo = r))
    await page.route('**/api/keys', async (r) => {
      await keysHeld
      await r.continue()
    })
    await page.click('nav a[data-page=keys]')
    await page.waitForSelector('#keys-table')
    await page.click('#signout')
    await page.waitForSelector('#signin-submit')
    const lateKeys = page.waitForResponse('**/api/keys')
    letKeysGo()
    t.equal((await lateKeys).status(), 401, 'the held keys request was answered after the sign-out')
    // Time for the page to read that answer and act on it (the check below is for an absence).
    await page.evaluate(() => new Promise((r) => setTimeout(r, 500)))
    t.ok(await page.isVisible('#signin-submit'), 'the sign-in form is still shown')
    t.equal(await page.locator('main .error').count(), 0, 'no error drawn over it')
    await page.unroute('**/api/keys')
    t.same(pageErrors, [], 'no script errors in the page')
  })
}
