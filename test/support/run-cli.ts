// A command of the repo run as its user runs it: node with tsx over the TypeScript entry, in a child
// process of its own, with the test's environment.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..')

export interface CliRun {
  code: number | null
  signal: string | null
  out: string
  err: string
}

/**
 * Runs `entry` (a path from the repo's root) with `args` and resolves when it exits, with what it printed.
 * `started` gets the child, to signal it or follow its output as it comes. A run that hangs gets a SIGTERM
 * after three minutes, so the test fails with what it printed rather than by the file's timeout.
 */
export function runCli(
  entry: string,
  args: string[],
  env: Record<string, string>,
  started?: (child: ChildProcessWithoutNullStreams) => void,
): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry), ...args], { cwd: ROOT, env })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  started?.(child)
  const guard = setTimeout(() => child.kill('SIGTERM'), 180_000)
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(guard)
      resolve({ code, signal, out, err })
    }),
  )
}
