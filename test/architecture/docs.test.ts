// The repo describes itself (docs/design.md "Code layout"): every environment variable the code reads is in the
// README's configuration tables, and no link in the README or docs leaves the repository or
// points to a missing file.
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const path = dir ? `${dir}/${name}` : name
    if (statSync(join(root, path)).isDirectory()) walk(path, keep, out)
    else if (keep(path)) out.push(path)
  }
  return out
}

/** Variables a source file reads: config spec keys (`NAME: v.int(...)`) and process.env / env reads. */
export function envReads(source: string): string[] {
  const out = new Set<string>()
  for (const m of source.matchAll(/^\s*([A-Z][A-Z0-9_]+):\s*v\.\w+\(/gm)) out.add(m[1]!)
  for (const m of source.matchAll(
    /\b(?:process\.)?env\.([A-Z][A-Z0-9_]+)\b|\b(?:process\.)?env\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
  ))
    out.add((m[1] ?? m[2])!)
  return [...out]
}

/** Names in the first cell of the README's table rows. */
export function tableVariables(markdown: string): Set<string> {
  const out = new Set<string>()
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('| `')) continue
    for (const m of line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) out.add(m[1]!)
  }
  return out
}

/** Link targets of a markdown file that are not web addresses or same-page anchors. */
export function localLinks(markdown: string): string[] {
  const out: string[] = []
  for (const m of markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
    out.push(target)
  }
  return out
}

t.test('the helpers read specs, env reads, tables and links', async (t) => {
  t.same(
    envReads(
      `const spec = {\n  FOO_BAR: v.int(1),\n}\nconst x = process.env.BAZ ?? env.QUX\nconst y = process.env['QUUX']`,
    ).sort(),
    ['BAZ', 'FOO_BAR', 'QUUX', 'QUX'],
  )
  t.same([...tableVariables('| Variable |\n| `A_B` / `CC` | `DD` |\n')].sort(), ['A_B', 'CC'])
  t.same(localLinks('[a](../shared/SPEC.md) [b](https://x.y) [c](#top) [d](docs/api.md#limits)'), [
    '../shared/SPEC.md',
    'docs/api.md#limits',
  ])
})

t.test('every variable the code reads is in the README configuration tables', async (t) => {
  const listed = tableVariables(readFileSync(join(root, 'README.md'), 'utf8'))
  const files = walk('services', (p) => p.endsWith('.ts') && !p.endsWith('.test.ts')).concat(
    walk('scripts', (p) => p.endsWith('.ts') && !p.endsWith('.test.ts')),
  )
  t.ok(files.length > 50)
  const missing: string[] = []
  for (const f of files) {
    for (const name of envReads(readFileSync(join(root, f), 'utf8')))
      if (!listed.has(name)) missing.push(`${name} (${f})`)
  }
  t.same(missing, [], 'add these to the README configuration table')
})

t.test('README and docs links stay inside the repository and resolve', async (t) => {
  const docs = [
    'README.md',
    'BENCHMARKS.md',
    'bench/HISTORY.md',
    ...walk('docs', (p) => p.endsWith('.md')),
    ...walk('services', (p) => p.endsWith('.md')),
    ...walk('schemas', (p) => p.endsWith('.md')),
    'sdk/README.md',
  ]
  const bad: string[] = []
  for (const doc of docs) {
    if (!existsSync(join(root, doc))) continue
    for (const link of localLinks(readFileSync(join(root, doc), 'utf8'))) {
      const path = resolve(root, dirname(doc), decodeURI(link.split('#')[0]!))
      const rel = relative(root, path)
      if (rel.startsWith('..')) bad.push(`${doc}: ${link} leaves the repository`)
      else if (!existsSync(path)) bad.push(`${doc}: ${link} does not exist`)
    }
  }
  t.same(bad, [])
})

/**
 * Lines that cite an issue number. Issues are not in the repository, so a reader cannot follow such a
 * reference; comments cite docs/ (decision numbers), BENCHMARKS.md or bench/HISTORY.md instead.
 */
export function issueCitations(source: string): string[] {
  return source.split('\n').filter((line) => /\bissue\s+#?\d/i.test(line))
}

t.test('the helper finds issue citations', async (t) => {
  t.same(issueCitations('// fixed in issue 9\nconst a = 1 // Issue #12 said so\n// see docs/design.md H27'), [
    '// fixed in issue 9',
    'const a = 1 // Issue #12 said so',
  ])
})

t.test('no file of the repository cites an issue number', async (t) => {
  // The benchmark history is a dated notebook whose entries name the work they measured; an applied
  // migration's text is checksummed (schemas/clickhouse/migrate.ts), so editing it would stop every
  // existing database; the vendored kafkajs cites its own upstream issues (packages/kafkajs/CHANGES.md).
  const kept = new Set(['BENCHMARKS.md', 'bench/HISTORY.md', 'schemas/clickhouse/006_retry_ids.sql'])
  const files = walk(
    '',
    (p) =>
      /\.(ts|js|mjs|sh|sql|md|jsonc|ya?ml|html|css)$/.test(p) &&
      !kept.has(p) &&
      !p.startsWith('packages/kafkajs/') &&
      p !== 'test/architecture/docs.test.ts',
  )
  const found = files.flatMap((p) =>
    issueCitations(readFileSync(join(root, p), 'utf8')).map((l) => `${p}: ${l.trim()}`),
  )
  t.same(found, [])
})

/** The `.ts` files a section of a markdown text names in backticks, from its heading to the next heading. */
export function filesNamedIn(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`${heading}\n`)
  if (start < 0) return []
  const next = markdown.indexOf('\n#', start + heading.length)
  const section = markdown.slice(start, next < 0 ? undefined : next)
  return [...new Set([...section.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!))]
}

t.test("design.md's walk of one event names files that exist", async (t) => {
  const design = readFileSync(join(root, 'docs/design.md'), 'utf8')
  const named = filesNamedIn(design, '### Ingest: one event, file by file')
  t.ok(named.length >= 20, `the walk names the files it passes (${named.length})`)
  // Paths are from the repository's root, under services/ingest/src/, or under services/ (shared/src/...).
  const missing = named.filter(
    (f) => !['', 'services/ingest/src', 'services'].some((d) => existsSync(join(root, d, f))),
  )
  t.same(missing, [], 'every file the walk names exists')
})

t.test("design.md's walk of one projector record names files that exist, under one heading", async (t) => {
  const design = readFileSync(join(root, 'docs/design.md'), 'utf8')
  const heading = '### Projector: one record, file by file'
  // A second copy of a heading (merge debris) leaves readers one walk split in two.
  t.equal(design.split(`${heading}\n`).length - 1, 1, 'the walk has one heading')
  const named = filesNamedIn(design, heading)
  t.ok(named.length >= 15, `the walk names the files it passes (${named.length})`)
  const missing = named.filter(
    (f) => !['', 'services/projector/src', 'services'].some((d) => existsSync(join(root, d, f))),
  )
  t.same(missing, [], 'every file the walk names exists')
})
