// The import boundary (docs/design.md "Code layout"): each service is changed without reading the others. A file under
// services/<name>/ may import its own service, services/shared and schemas/; services/shared and
// the scripts (admin CLI, start, drill) import only shared code and schemas. Test files may also
// use the harnesses in test/support. The system tests (test/), the bench and the SDK's own tests
// are outside the rule: they exercise whole services on purpose.
import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Relative specifiers of static imports, re-exports and dynamic import() calls. */
export function importSpecifiers(source: string): string[] {
  const out: string[] = []
  const rx = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g
  for (const m of source.matchAll(rx)) out.push(m[1]!)
  return out
}

/** The area a repo-relative path belongs to: 'services/<name>', 'scripts', 'schemas', 'test/support' or other. */
function areaOf(path: string): string {
  const parts = path.split('/')
  if (parts[0] === 'services') return `services/${parts[1]}`
  if (parts[0] === 'test' && parts[1] === 'support') return 'test/support'
  return parts[0]!
}

function allowed(fromArea: string, isTest: boolean): Set<string> {
  const base = new Set(['services/shared', 'schemas', fromArea])
  if (isTest) base.add('test/support')
  return base
}

const CHECKED = /^(services\/[^/]+|scripts|schemas)$/

/** Violations among `files` (repo-relative path -> source): "<file> imports <target>". */
export function boundaryViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = []
  for (const [file, source] of files) {
    const from = areaOf(file)
    if (!CHECKED.test(from)) continue
    const ok = allowed(from, /\.test\.ts$/.test(file))
    for (const spec of importSpecifiers(source)) {
      if (!spec.startsWith('.')) continue
      const target = normalize(join(dirname(file), spec))
        .split('\\')
        .join('/')
      if (target.startsWith('..')) {
        out.push(`${file} imports ${spec}, outside the repository`)
        continue
      }
      const to = areaOf(target)
      if (!ok.has(to)) out.push(`${file} imports ${target} (${to})`)
    }
  }
  return out
}

/** The module files the checks read: TypeScript and JavaScript, ES modules and CommonJS. */
const SOURCE_FILE = /\.[cm]?[jt]sx?$/

function sources(dir: string, into: Map<string, string>): Map<string, string> {
  for (const name of readdirSync(join(root, dir))) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const path = dir ? `${dir}/${name}` : name
    if (statSync(join(root, path)).isDirectory()) sources(path, into)
    else if (SOURCE_FILE.test(name) && !path.includes('/public/'))
      into.set(path, readFileSync(join(root, path), 'utf8'))
  }
  return into
}

t.test('the checker finds a service importing another service, and allows shared code', async (t) => {
  const files = new Map([
    [
      'services/ingest/src/main.ts',
      `import { x } from '../../projector/src/usage/q.js'\nimport { y } from '../../shared/src/log.js'`,
    ],
    ['services/shared/src/a.ts', `export { z } from '../../dashboard/src/b.js'`],
    ['scripts/tool.ts', `const m = await import('../test/support/harness.js')`],
    ['services/dashboard/src/api/x.test.ts', `import { h } from '../../../../test/support/harness.js'`],
    ['test/e2e/a.test.ts', `import { m } from '../../services/ingest/src/main.js'`],
  ])
  t.same(boundaryViolations(files), [
    'services/ingest/src/main.ts imports services/projector/src/usage/q.js (services/projector)',
    'services/shared/src/a.ts imports services/dashboard/src/b.js (services/dashboard)',
    'scripts/tool.ts imports test/support/harness.js (test/support)',
  ])
})

t.test('no file under services/, scripts/ or schemas/ crosses the boundary', async (t) => {
  const files = new Map<string, string>()
  for (const dir of ['services', 'scripts', 'schemas']) sources(dir, files)
  t.ok(files.size > 50, `found ${files.size} source files`)
  t.same(boundaryViolations(files), [])
})

// A11: the Kafka client is ours behind one port. Only services/shared/src/kafka/client.ts imports
// kafkajs (the vendored copy in packages/kafkajs); everything else, tests, scripts and the bench
// included, takes the client and its types from there.
const KAFKA_PORT = 'services/shared/src/kafka/client.ts'
// This file, whose examples below import kafkajs in strings.
const THIS_FILE = 'test/architecture/boundaries.test.ts'

/** Specifiers given to require (also `require.resolve`, `createRequire(...)(...)` and `import x = require(...)`). */
function requiredSpecifiers(source: string): string[] {
  const rx = /\b(?:require(?:\.resolve)?|createRequire\([^()]*(?:\([^()]*\))?[^()]*\))\s*\(\s*['"`]([^'"`]+)['"`]/g
  return [...source.matchAll(rx)].map((m) => m[1]!)
}

/** kafkajs by its name, or by a path into the vendored package or into an installed copy. */
function namesKafkajs(spec: string): boolean {
  return /^kafkajs(?:\/|$)/.test(spec) || /(?:^|\/)(?:packages|node_modules)\/kafkajs(?:\/|$)/.test(spec)
}

/** Files among `files` other than the port that import kafkajs (or one of its files) themselves. */
export function kafkajsImporters(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = []
  for (const [file, source] of files) {
    if (file === KAFKA_PORT || file === THIS_FILE) continue
    const specs = [...importSpecifiers(source), ...requiredSpecifiers(source)]
    if (specs.some(namesKafkajs)) out.push(file)
  }
  return out
}

t.test('the kafkajs check finds imports, type imports, dynamic imports and requires of kafkajs', async (t) => {
  const files = new Map([
    [KAFKA_PORT, `import kafkajs from 'kafkajs'`],
    ['services/ingest/src/a.ts', `import type { Producer } from 'kafkajs'`],
    ['test/b.test.ts', `const k = await import('kafkajs')`],
    ['bench/c.ts', 'const r = require.resolve(`kafkajs/src/protocol/request.js`)'],
    [
      'services/shared/src/d.ts',
      `import { SchemaRegistry } from '@kafkajs/confluent-schema-registry'\nimport { Kafka } from './kafka/client.js'`,
    ],
  ])
  t.same(kafkajsImporters(files), ['services/ingest/src/a.ts', 'test/b.test.ts', 'bench/c.ts'])
})

t.test('the kafkajs check finds the ways around a bare specifier', async (t) => {
  const files = new Map([
    // A path into the vendored package or into node_modules' copy of it.
    ['services/projector/src/a.ts', `import { Kafka } from '../../../packages/kafkajs/index.js'`],
    ['test/support/b.ts', `import type { Consumer } from '../../node_modules/kafkajs/types/index.js'`],
    ['scripts/c.ts', `export * from "../packages/kafkajs"`],
    // require with a space, a createRequire called in place, a TypeScript import-equals.
    ['bench/d.ts', `const k = require ('kafkajs')`],
    ['test/e.test.ts', `const k = createRequire(import.meta.url)('kafkajs')`],
    ['services/ingest/src/f.cts', `import kafkajs = require('kafkajs')`],
    // Not imports of kafkajs: the schema registry's scope, a message, a folder name in a path.
    ['services/shared/src/g.ts', `import { SchemaRegistry } from '@kafkajs/confluent-schema-registry'`],
    ['services/shared/src/h.ts', `throw new Error('kafkajs')`],
    ['test/i.test.ts', `const dir = join(root, 'packages', 'kafkajs')`],
  ])
  t.same(kafkajsImporters(files), [
    'services/projector/src/a.ts',
    'test/support/b.ts',
    'scripts/c.ts',
    'bench/d.ts',
    'test/e.test.ts',
    'services/ingest/src/f.cts',
  ])
})

t.test('the checks read every kind of module file', async (t) => {
  for (const name of ['a.ts', 'a.mts', 'a.cts', 'a.tsx', 'a.js', 'a.mjs', 'a.cjs', 'a.jsx']) t.match(name, SOURCE_FILE)
  t.notMatch('a.d.json', SOURCE_FILE)
})

t.test('no file but the Kafka port imports kafkajs', async (t) => {
  const files = new Map<string, string>()
  for (const dir of ['services', 'scripts', 'schemas', 'test', 'bench', 'sdk', 'deploy']) sources(dir, files)
  // Other workspace packages too; the vendored kafkajs is the client itself.
  for (const name of readdirSync(join(root, 'packages'))) if (name !== 'kafkajs') sources(`packages/${name}`, files)
  t.ok(files.has(KAFKA_PORT), 'the port is there')
  t.same(kafkajsImporters(files), [])
})
