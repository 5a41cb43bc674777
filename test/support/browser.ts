// The browser the e2e tests drive: Debian's headless Chromium through playwright-core, never a
// downloaded browser (deploy/local/install-test-deps.sh installs it).
import { chromium, type Browser, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--headless=new'],
  })
}

/** Signs up through the dashboard's sign-up page, as a newcomer does; resolves on the keys page. */
export async function signUpInPage(page: Page, dashboardUrl: string, email: string, name: string): Promise<void> {
  await page.goto(`${dashboardUrl}/#/signup`)
  await page.fill('input[name=name]', name)
  await page.fill('input[name=email]', email)
  await page.fill('input[name=password]', 'a long enough password')
  await page.click('#signup-submit')
  await page.waitForSelector('#create-key')
}
