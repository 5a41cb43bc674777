// The vendored package is kafkajs 2.2.4 from the npm tarball except where CHANGES.md says: every
// tarball file is here unchanged, or (for the seven replaced modules) kept unchanged beside its
// replacement as <name>.upstream.js, the reference the differential tests compare against.
// upstream.sha256 is `sha256sum` of every file of `npm pack kafkajs@2.2.4`.
import t from 'tap'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { src } from './support.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const sha256 = (path: string) => createHash('sha256').update(readFileSync(join(root, path))).digest('hex')
// Edited in place (CHANGES.md): the package's manifest, its exports (the `vendored` marker), its types,
// the admin's offset reads and the connection's response buffering (fixes, not replacements: no upstream
// copy is kept beside them).
const EDITED = new Set([
  'package.json',
  'index.js',
  'types/index.d.ts',
  'src/admin/index.js',
  'src/network/connection.js',
])

t.test('every npm tarball file is unchanged or kept as its .upstream.js copy', async (t) => {
  const { replaced } = src<{ replaced: readonly string[] }>('../vendored.js')
  const lines = readFileSync(new URL('./upstream.sha256', import.meta.url), 'utf8').trim().split('\n')
  t.equal(lines.length, 391, 'the tarball has 391 files')
  const differ: string[] = []
  for (const line of lines) {
    const [hash, path] = line.split(/\s+/) as [string, string]
    if (EDITED.has(path)) continue
    const inSrc = path.replace(/^src\//, '')
    const here = replaced.includes(inSrc) ? path.replace(/\.js$/, '.upstream.js') : path
    if (sha256(here) !== hash) differ.push(here)
  }
  t.same(differ, [], 'no other file differs from upstream')
  t.equal(replaced.length, 7, 'seven modules replaced, as CHANGES.md lists')
  for (const path of replaced) t.match(readFileSync(join(root, 'src', path), 'utf8'), /Deviation from kafkajs 2\.2\.4/, `${path} says it deviates`)
})
