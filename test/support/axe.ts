// axe-core run in a browser page (U9 of docs/design.md: no serious or critical violation on any page at
// desktop and 390 px): the serious and critical violations, as "rule (impact, n nodes: first targets)", so
// a test can assert none and a failure names where to look.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** `id (impact, n nodes: two targets)` per serious or critical violation; axe is injected once per document. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
  return page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v: any) =>
          `${v.id} (${v.impact}, ${v.nodes.length} nodes: ${v.nodes
            .slice(0, 2)
            .map((n: any) => n.target.join(' '))
            .join(', ')})`,
      )
  })
}
