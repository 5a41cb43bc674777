// axe-core run in a browser page (U9 of docs/design.md: no serious or critical violation on any page at
// desktop and 390 px): the serious and critical violations, as "rule (n nodes)", so a test can assert none.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** `id (n nodes)` per serious or critical violation; axe is injected once per document. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
  return page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.nodes.length} nodes)`)
  })
}
