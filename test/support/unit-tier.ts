// The unit tier in one warm process (run by `npm run test:unit`): tap starts a process and a
// TypeScript loader per test file, which costs seconds a file on this 2-core machine while most
// unit files assert in milliseconds. This file imports every test that needs no servers (each
// `*.test.ts` that is not `*.integration.test.ts`) into one tap process, so the loader, tap and
// the shared modules load once. Every file's top-level `t.test` joins this process's root test,
// and a failure's `at:` line names its file. `npm test` still runs each file in its own process.
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'bench'])

/** Test files under dir that need no servers, in a stable order. */
export function unitTestFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) unitTestFiles(path, out)
    else if (entry.name.endsWith('.test.ts') && !entry.name.endsWith('.integration.test.ts')) out.push(path)
  }
  return out.sort()
}

const root = process.cwd()
for (const file of unitTestFiles(root)) {
  process.stderr.write(`# unit tier: ${relative(root, file)}\n`)
  await import(pathToFileURL(file).href)
}
