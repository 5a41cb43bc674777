// The unit tier in warm processes (run by `npm run test:unit`): tap starts a process and a
// TypeScript loader per test file, which costs seconds a file on this 2-core machine while most
// unit files assert in milliseconds (H47). The tier's files (each `*.test.ts` that is not
// `*.integration.test.ts`) are imported into two tap processes instead, one per core, each taking
// every other file (unit-tier-1.ts, unit-tier-2.ts): the loader, tap and the shared modules load
// once a process. Every file's top-level `t.test` joins its process's root test, and a failure's
// `at:` line names its file. `npm test` still runs each file in its own process. tap's timeout
// (package.json, 180 s) is sized for one file; test:unit gives each half 900 s, as a half holds
// about forty files and the machine may be shared.
import t from 'tap'
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

/** Imports the unit tier's files numbered `shard` modulo `shards` into this process. */
export async function runUnitTier(shard: number, shards: number, root = process.cwd()): Promise<void> {
  const files = unitTestFiles(root).filter((_, i) => i % shards === shard)
  for (const file of files) {
    process.stderr.write(`# unit tier: ${relative(root, file)}\n`)
    // A file that cannot even load fails here, and the rest of the half still runs.
    await import(pathToFileURL(file).href).catch((err) =>
      t.fail(`${relative(root, file)} did not load`, { error: err }),
    )
  }
}
