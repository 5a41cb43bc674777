// Ports and directories that live as long as one test (the stack scripts' tests, deploy/local/test/).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'

interface Teardown {
  teardown(fn: () => void): void
}

/** A port on 127.0.0.1 held by a server of this process until the test ends. */
export async function takenPort(t: Teardown): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => void server.close())
  return (server.address() as { port: number }).port
}

/** A port on 127.0.0.1 that nothing listened on a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const port = (server.address() as { port: number }).port
  await new Promise((r) => server.close(r))
  return port
}

/** A temporary directory, removed when the test ends. */
export function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
