// Part of `npm run build`: the files the compiled services read at run time beside their code
// (Avro schemas, ClickHouse migrations, the dashboard's static files), copied into dist/ at the
// same relative paths. Plain JavaScript so the build needs nothing but tsc and node.
import { cpSync, existsSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const assets = [
  ['schemas/avro', (f) => f.endsWith('.avsc') || !f.includes('.')],
  ['schemas/clickhouse', (f) => f.endsWith('.sql') || !f.includes('.')],
  ['services/dashboard/src/public', () => true],
]
for (const [dir, keep] of assets) {
  const from = join(root, dir)
  if (!existsSync(from)) throw new Error(`build: ${dir} is missing`)
  cpSync(from, join(root, 'dist', dir), { recursive: true, filter: (src) => keep(src.slice(src.lastIndexOf('/') + 1)) })
}
// The stamp ensure-built.mjs compares with the sources.
writeFileSync(join(root, 'dist', '.built'), new Date().toISOString() + '\n')
console.log('build: dist/ is ready')
