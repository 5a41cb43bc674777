// HTTP code stays wiring (issue 11): no top-level function in the HTTP and API folders runs over
// 60 lines; behaviour lives in small named modules (e.g. services/ingest/src/pipeline/).
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MAX_LINES = 60
const DIRS = ['services/ingest/src/http', 'services/dashboard/src/api', 'services/dashboard/src/http']

/** Top-level functions (from `function`/`export function` at column 0 to the next `}` at column 0) longer than max. */
export function longFunctions(source: string, max: number): string[] {
  const out: string[] = []
  let start = -1
  let name = ''
  source.split('\n').forEach((line, i) => {
    const m = /^(?:export )?(?:async )?function\s+(\w+)/.exec(line)
    if (m) {
      start = i
      name = m[1]!
    } else if (start >= 0 && line.startsWith('}')) {
      const n = i - start + 1
      if (n > max) out.push(`${name} (${n} lines)`)
      start = -1
    }
  })
  return out
}

t.test('the measure finds a long function', async (t) => {
  const long = `export function big() {\n${'  x()\n'.repeat(70)}}\nfunction small() {\n  return 1\n}\n`
  t.same(longFunctions(long, MAX_LINES), ['big (72 lines)'])
})

t.test(`no function in the HTTP and API folders is over ${MAX_LINES} lines`, async (t) => {
  const found: string[] = []
  for (const dir of DIRS) {
    for (const f of readdirSync(join(root, dir))) {
      if (!f.endsWith('.ts') || f.endsWith('.test.ts')) continue
      for (const l of longFunctions(readFileSync(join(root, dir, f), 'utf8'), MAX_LINES)) found.push(`${dir}/${f}: ${l}`)
    }
  }
  t.same(found, [])
})
