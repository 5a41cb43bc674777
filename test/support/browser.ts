// Debian's headless Chromium for the browser tests, driven by playwright-core (never a downloaded
// browser): `bash deploy/local/install-test-deps.sh` installs it; CHROMIUM_PATH points elsewhere.
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

// The tests load through tsx, whose esbuild keeps function names by wrapping named inner functions in a
// `__name(fn, "name")` call. A function handed to page.evaluate or waitForFunction is sent as its source text,
// and the page has no `__name`: every page gets one that returns the function as it is.
const KEEP_NAMES_SHIM = 'globalThis.__name = (fn) => fn'

/** Launches Chromium headless; `t.teardown` closes it. Its contexts and pages get KEEP_NAMES_SHIM. */
export async function launchChromium(t: { teardown(fn: () => unknown): void }): Promise<Browser> {
  const browser = await launch()
  t.teardown(() => browser.close())
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    await context.addInitScript(KEEP_NAMES_SHIM)
    return context
  }
  // Browser.newPage makes its own context without going through newContext. The context stays until the
  // browser closes (t.teardown above): closing it with the page could race that close and reject.
  browser.newPage = async (options) => (await browser.newContext(options)).newPage()
  return browser
}

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--headless=new',
    ],
  })
}

/** A page in a fresh context (its own cookies), closed by `t.teardown`; waits poll up to `timeoutMs`. */
export async function freshPage(
  browser: Browser,
  t: { teardown(fn: () => unknown): void },
  timeoutMs: number,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext(options)
  t.teardown(() => context.close())
  const page = await context.newPage()
  page.setDefaultTimeout(timeoutMs)
  return page
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
