// End to end in a real browser (Debian's headless Chromium, as dashboard.e2e does): a signed-in
// account opens a user's page, erases the user with suppression after a confirmation that says what
// happens, and watches the receipt complete; the user's rows are gone and ingest refuses them (A12, H55).
// The account page lists the account's erasures with their steps.
// The same account page sets how long events are kept (H60). axe-core (npm), as the usability test
// runs it, finds no serious or critical violation on the receipt or on the retention setting.
// The first test runs with sealing off (PRIVACY_ENCRYPT=false, records in clear): the receipt says the
// Kafka history is not erased. With sealing on (the default, A29; the keys topic made to forget in seconds
// as the privacy tests do), the same page's receipt completes every step, "last copy gone from disk"
// included (A17, A22).
// No timed assertions: every wait polls generously.
import t from 'tap'
import { existsSync } from 'node:fs'
import { startDashboard } from '../support/dashboard-harness.js'
import { waitUntil } from '../support/harness.js'
import { CHROMIUM, launchChromium, signUpInPage } from '../support/browser.js'
import { seriousViolations } from '../support/axe.js'
import { FAST_KEYS_ENV, makeKeysTopicFast } from '../privacy/keys-topic.js'

const WAIT = 60_000
t.test('sealing off: erase a user from their page, watch the receipt, then set the retention', async (t) => {
  if (!existsSync(CHROMIUM))
    return t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
  const s = await startDashboard(t, { env: { PRIVACY_ENCRYPT: 'false' } })
  const browser = await launchChromium(t)
  const page = await (await browser.newContext({ timezoneId: 'UTC', locale: 'en-GB' })).newPage()
  page.setDefaultTimeout(WAIT)
  const dialogs: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.accept()
  })

  const email = `eraser-${s.suffix}@example.com`
  await signUpInPage(page, s.dashboardUrl, email, 'Erasers')
  const accountId = s.admin.findAccountByEmail(email)!.account_id
  const { key } = await s.createKey({ account: accountId, type: 'live' })
  const send = () =>
    s.post('/v1/event', { event: 'opened', user: { id: 'erase_me', email: 'erase.me@example.com' } }, { key })
  await waitUntil(async () => (await send()).status === 200, WAIT, 'the key to work at the ingest')
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events WHERE user_id = 'erase_me'`, 1, WAIT)

  await page.goto(`${s.dashboardUrl}/#/users/erase_me`)
  await page.check('#erase-suppress')
  await page.click('#erase-user')
  await page.waitForFunction(() => {
    const cell = document.querySelector('#erasure-steps tr[data-step=projections] td')
    return cell !== null && cell.textContent !== 'in progress'
  })
  t.match(
    dialogs[0],
    /Erase user erase_me\?.*New events for this user id will be refused.*Kafka history/,
    'the confirmation says what happens',
  )
  t.match(
    await page.textContent('#erasure-steps tr[data-step=history] td'),
    /not yet/,
    'the receipt says the Kafka history is not erased yet',
  )
  t.same(
    await s.query(`SELECT 1 FROM ${s.database}.events WHERE user_id = 'erase_me'`),
    [],
    'the user has no rows any more',
  )
  await waitUntil(async () => (await send()).status === 403, WAIT, 'ingest refuses the suppressed user')
  t.pass('new events for the user are refused')
  t.same(await seriousViolations(page), [], 'the receipt has no serious or critical axe violation')

  await page.goto(`${s.dashboardUrl}/#/account`)
  await page.waitForFunction(() => (document.querySelector('#retention-months') as HTMLInputElement)?.value === '0')
  t.pass('the account page shows the default retention: for ever (0)')
  // The account's erasures, listed with their steps: the receipt can be read again after leaving the user page.
  await page.waitForSelector('#erasures tbody tr')
  const listed = await page.$$eval('#erasures tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
  )
  t.equal(listed.length, 1, 'one erasure listed')
  t.equal(listed[0]![0], 'erase_me', 'the user erased')
  t.match(listed[0]![1], /by dashboard:/, 'who asked')
  t.notMatch(listed[0]![2], /in progress/, 'the projections step done')
  t.equal(listed[0]![3], 'not yet', 'the Kafka history step not (sealing off)')
  t.same(await seriousViolations(page), [], 'the account page has no serious or critical axe violation')
  await page.fill('#retention-months', '12')
  await page.click('#save-retention')
  t.equal(await page.textContent('#retention-saved'), 'Events are kept for 12 months.')
  t.equal(s.admin.accounts.get(accountId)?.retention_months, 12, 'the retention is on the account record')
})

t.test('with sealing on, the receipt shows every step done, the last copy gone from disk included', async (t) => {
  if (!existsSync(CHROMIUM))
    return t.fail(`${CHROMIUM} is missing: run deploy/local/install-test-deps.sh (apt-get install chromium)`)
  const s = await startDashboard(t, { env: FAST_KEYS_ENV })
  await makeKeysTopicFast(s.kafka, s.topics.keys!)
  const browser = await launchChromium(t)
  const page = await (await browser.newContext({ timezoneId: 'UTC', locale: 'en-GB' })).newPage()
  page.setDefaultTimeout(WAIT)
  page.on('dialog', (d) => void d.accept())

  const email = `sealed-eraser-${s.suffix}@example.com`
  await signUpInPage(page, s.dashboardUrl, email, 'Sealed erasers')
  const accountId = s.admin.findAccountByEmail(email)!.account_id
  const { key } = await s.createKey({ account: accountId, type: 'live' })
  const send = () => s.post('/v1/event', { event: 'opened', user: { id: 'sealed_me' } }, { key })
  await waitUntil(async () => (await send()).status === 200, WAIT, 'the key to work at the ingest')
  await s.waitForRows(`SELECT 1 FROM ${s.database}.events WHERE user_id = 'sealed_me'`, 1, WAIT)

  await page.goto(`${s.dashboardUrl}/#/users/sealed_me`)
  await page.click('#erase-user')
  // The page reads the receipt every 5 s once purged; the keys topic forgets within a minute or two here.
  await page.waitForFunction(
    () => {
      const cell = document.querySelector('#erasure-steps tr[data-step=disk] td')
      return cell !== null && cell.textContent !== 'not yet'
    },
    undefined,
    { timeout: 240_000 },
  )
  for (const step of ['projections', 'history', 'disk'])
    t.notMatch(
      await page.textContent(`#erasure-steps tr[data-step=${step}] td`),
      /in progress|not yet/,
      `the receipt says the ${step} step is done`,
    )
  t.same(
    await s.query(`SELECT 1 FROM ${s.database}.events WHERE user_id = 'sealed_me'`),
    [],
    'the user has no rows any more',
  )
  t.same(await seriousViolations(page), [], 'the completed receipt has no serious or critical axe violation')
})
